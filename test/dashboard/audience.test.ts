// The Audience page in a real browser: a topic and a segment made from the UI, a CSV with one
// bad line uploaded from the page into the segment, its progress followed to done and the
// refused line shown with its reason; a contact found by name, unsubscribed from the topic on
// its page; a property defined. Each page checked with axe-core, one at phone width.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startDeliveryTest } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';

const CSV = [
  'email,first_name,last_name',
  'ada@lovelace.example,Ada,Lovelace',
  'grace@navy.example,Grace,Hopper',
  'not-an-address,Bad,Line',
  'alan@bletchley.example,Alan,Turing',
].join('\n');

describe('dashboard: the audience, seen and changed in a browser', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;

  before(async () => {
    t = await startDeliveryTest();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'marketer@audience.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const get = (path: string) => page.evaluate(async (p) => (await fetch(p)).json(), path);

  it('says what to do on an empty audience', async () => {
    await page.goto(`${t.url}/dashboard/audience`);
    await page.getByText('No contacts yet').waitFor();
    await assertAccessible(page, 'audience, empty');
    await screenshot(page, 'audience-01-empty');
  });

  it('creates a topic, subscribed by default', async () => {
    await page.getByRole('navigation', { name: 'Audience' }).getByRole('link', { name: 'Topics' }).click();
    await page.getByLabel('Name').fill('Product news');
    await page.getByLabel('Description (optional)').fill('What we ship, monthly');
    // Labelled with the API's own word: opt_in is subscribed by default.
    await page.getByLabel('Subscribed until they unsubscribe (opt_in)').check();
    await page.getByRole('button', { name: 'Create topic' }).click();
    await page.getByRole('rowheader', { name: /Product news/ }).waitFor();
    const topicRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /Product news/ }) });
    assert.equal(await topicRow.getByRole('cell').first().textContent(), 'opt_insubscribed until they unsubscribe');
    const topics = await get('/topics');
    assert.deepEqual(
      topics.data.map((x: any) => [x.name, x.default_subscription, x.visibility]),
      [['Product news', 'opt_in', 'public']],
    );
    await assertAccessible(page, 'topics');
    await screenshot(page, 'audience-02-topics');
  });

  it('creates a segment', async () => {
    await page.getByRole('link', { name: 'Segments' }).click();
    await page.getByText('No segments yet').waitFor();
    await page.getByLabel('Name').fill('Customers');
    await page.getByRole('button', { name: 'Create segment' }).click();
    await page.getByRole('link', { name: 'Customers' }).waitFor();
    assert.deepEqual(
      (await get('/segments')).data.map((s: any) => s.name),
      ['Customers'],
    );
    await assertAccessible(page, 'segments');
    await screenshot(page, 'audience-03-segments');
  });

  it('imports a CSV into the segment: progress to done, the bad line refused with its reason', async () => {
    await page.getByRole('link', { name: 'Imports' }).click();
    await page.getByText('No imports yet').waitFor();
    await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    await page.getByLabel('Add everyone to a segment (optional)').selectOption({ label: 'Customers' });
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('heading', { name: 'Contact import' }).waitFor();
    // The page polls the import until the worker is done with it.
    await page.getByRole('status').filter({ hasText: 'Done: 4 rows read' }).waitFor({ timeout: 20_000 });
    await page.getByRole('heading', { name: 'Refused lines' }).waitFor();
    const refused = page.getByRole('row').filter({ hasText: 'not-an-address' });
    assert.deepEqual(await refused.getByRole('cell').allTextContents(), ['4', '"not-an-address" is not a valid email address.']);
    const facts = (await page.locator('.facts').textContent()) ?? '';
    assert.match(facts, /Contacts created\s*3/);
    assert.match(facts, /Lines refused\s*1/);
    await assertAccessible(page, 'import, done');
    await screenshot(page, 'audience-04-import-done');
    await page.getByRole('link', { name: '← Imports' }).click();
    const row = page.getByRole('row').filter({ has: page.getByText('done') });
    await row.waitFor();
    assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(1), ['4', '3', '0', '0', '1']);
    await assertAccessible(page, 'imports list');
  });

  it('finds a contact by name and unsubscribes it from the topic on its page', async () => {
    await page.getByRole('link', { name: 'Contacts' }).click();
    await page.getByRole('rowheader', { name: 'ada@lovelace.example' }).waitFor();
    assert.equal(await page.getByRole('rowheader').count(), 3);
    await page.getByLabel('Search contacts by address or name').fill('hopper');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('rowheader', { name: 'ada@lovelace.example' }).waitFor({ state: 'detached' });
    await page.getByRole('rowheader', { name: 'grace@navy.example' }).waitFor();
    assert.deepEqual(await page.getByRole('rowheader').allTextContents(), ['grace@navy.example']);
    await assertAccessible(page, 'contacts, searched');
    await screenshot(page, 'audience-05-contacts-search');

    await page.getByRole('link', { name: 'grace@navy.example' }).click();
    await page.getByRole('heading', { name: 'grace@navy.example' }).waitFor();
    await page.getByRole('link', { name: 'Customers' }).waitFor();
    const topicRow = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /Product news/ }) });
    assert.equal(await topicRow.getByRole('cell').first().textContent(), 'subscribed (opt_in)');
    // Its activity: nothing sent to it yet.
    await page.getByRole('region', { name: 'Activity' }).getByText('No email was sent to this address yet.').waitFor();
    await page.getByRole('button', { name: 'Unsubscribe grace@navy.example from Product news' }).click();
    await page.getByRole('button', { name: 'Subscribe grace@navy.example to Product news' }).waitFor();
    assert.equal(await topicRow.getByRole('cell').first().textContent(), 'not subscribed (opt_out)');
    const topics = await get('/contacts/grace@navy.example/topics');
    assert.deepEqual(
      topics.data.map((x: any) => [x.name, x.subscription]),
      [['Product news', 'opt_out']],
    );
    await assertAccessible(page, 'contact page');
    await screenshot(page, 'audience-06-contact');
  });

  it('edits the contact and reads well at phone width', async () => {
    await page.getByLabel('First name').fill('Grace Brewster');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.equal((await get('/contacts/grace@navy.example')).first_name, 'Grace Brewster');
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at 390px`);
    await screenshot(page, 'audience-07-contact-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it("shows the segment's members", async () => {
    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('heading', { name: 'Customers' }).waitFor();
    await page.getByRole('rowheader', { name: 'alan@bletchley.example' }).waitFor();
    assert.deepEqual((await page.getByRole('rowheader').allTextContents()).sort(), ['ada@lovelace.example', 'alan@bletchley.example', 'grace@navy.example']);
    await page.getByText('3 contacts in this segment.').waitFor();
    await assertAccessible(page, 'segment members');
    await screenshot(page, 'audience-08-segment');
  });

  it('defines a property with a type and a fallback, and deletes it after a confirmation', async () => {
    await page.goto(`${t.url}/dashboard/audience/properties`);
    await page.getByLabel('Key').fill('company');
    await page.getByLabel('Type').selectOption('string');
    await page.getByLabel('Fallback value (optional)').fill('your company');
    await page.getByRole('button', { name: 'Create property' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'company' }) });
    await row.waitFor();
    assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(0, 2), ['text', 'your company']);
    await assertAccessible(page, 'properties');
    await screenshot(page, 'audience-09-properties');
    await row.getByRole('button', { name: 'Delete property company' }).click();
    await page.getByRole('dialog', { name: 'Delete property company?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No properties yet').waitFor();
    assert.deepEqual((await get('/contact-properties')).data, []);
  });
});
