// The Broadcasts page in a real browser, against a real MX sink and DNS: a broadcast composed
// from the UI to a segment of three contacts, sent after a confirmation; the sink receives the
// three emails and the page shows recipients 3 and delivered 3; a tracked link GET from a
// received message makes "clicked" go up and the link appear. A second broadcast, its content
// from a template, scheduled for "tomorrow at 9am" (read by the server) and canceled. A third
// from a template with a variable of its own (issue 37): copied with only the merge tags
// sending takes, an unknown tag flagged as it is typed, then sent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import PostalMime from 'postal-mime';
import { eventually, FROM, publishMx, SENDER_DOMAIN, startDeliveryTest } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';

const PEOPLE = ['ann', 'bob', 'cy'].map((n) => `${n}@example.org`);

describe('dashboard: broadcasts composed, sent, read and scheduled in a browser', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let broadcastId: string;

  before(async () => {
    t = await startDeliveryTest();
    publishMx(t, 'example.org', [{ name: 'mx.example.org', priority: 10, address: '127.0.0.1' }]);
    const domain = (await t.resend.domains.list()).data!.data.find((d) => d.name === SENDER_DOMAIN)!;
    assert.equal((await t.resend.domains.update({ id: domain.id, clickTracking: true })).error, null);
    const segment = await t.resend.segments.create({ name: 'Early birds' });
    for (const email of PEOPLE) assert.equal((await t.resend.contacts.create({ email, segments: [{ id: segment.data!.id }] } as any)).error, null);
    await t.resend.templates.create({ name: 'Monthly letter', subject: 'This month', html: '<h1>This month</h1><p>Hello {{{FIRST_NAME|there}}}</p>' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'editor@broadcasts.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const get = (path: string) => page.evaluate(async (p) => (await fetch(p)).json(), path);
  const figure = (name: string) =>
    page
      .locator('.figures > div')
      .filter({ has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) })
      .locator('dd');

  it('says what to do before any broadcast', async () => {
    await page.goto(`${t.url}/dashboard/broadcasts`);
    await page.getByText('No broadcasts yet').waitFor();
    await screenshot(page, 'broadcasts-01-empty');
  });

  it('composes a broadcast to the segment and saves it as a draft', async () => {
    await page.getByRole('link', { name: 'New broadcast' }).click();
    await page.getByRole('heading', { name: 'New broadcast' }).waitFor();
    await page.getByLabel('Name (only you see it)', { exact: true }).fill('Launch news');
    await page.getByLabel('From', { exact: true }).fill(FROM);
    await page.getByLabel('Subject', { exact: true }).fill('We launched');
    await page.getByLabel('Segment', { exact: true }).selectOption({ label: 'Early birds' });
    await page.getByLabel('HTML', { exact: true }).fill('<p>Hi {{{FIRST_NAME|there}}}, see <a href="https://sender.test/launch">the launch</a>.</p>');
    await assertAccessible(page, 'compose');
    await screenshot(page, 'broadcasts-02-compose');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('heading', { name: 'Launch news' }).waitFor();
    broadcastId = new URL(page.url()).pathname.split('/').at(-1)!;
    const saved = await get(`/broadcasts/${broadcastId}`);
    assert.equal(saved.status, 'draft');
    assert.equal(saved.subject, 'We launched');
  });

  it('sends it after a confirmation: the sink gets three emails, the page shows recipients and delivered', async () => {
    await page.getByRole('button', { name: 'Send now…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send this broadcast now?' });
    await dialog.getByRole('button', { name: 'Send now' }).click();
    await t.sink.waitFor(3);
    assert.deepEqual(t.sink.messages.flatMap((m) => m.to).sort(), PEOPLE);
    await page.locator('.status', { hasText: /^sent$/ }).waitFor({ timeout: 20_000 });
    await eventually(async () => (await figure('delivered').textContent())?.startsWith('3') ?? false, 20_000, 'delivered 3 on the page');
    assert.match((await figure('recipients').textContent())!, /^3/);
    await page.getByRole('rowheader', { name: 'bob@example.org' }).waitFor();
    assert.equal(await page.getByText('No clicks yet').count(), 1);
    // Its content, in the mail viewer's sandboxed frame.
    await page.frameLocator('iframe.preview').getByRole('link', { name: 'the launch' }).waitFor();
    await page.locator('iframe.preview').scrollIntoViewIfNeeded(); // painted in the screenshot only once seen
    // No text was written: each email's text part was made from the HTML, and the page says so.
    await page.getByText("No text was written: each email's text part is made from the HTML when it is sent.").waitFor();
    assert.match(t.sink.messages[0].raw.toString(), /Content-Type: text\/plain/i);
    await assertAccessible(page, 'broadcast, sent');
    await screenshot(page, 'broadcasts-03-sent');
  });

  it('counts a click on a tracked link from a received message, and lists the link', async () => {
    const message = t.sink.messages.find((m) => m.to.includes('ann@example.org'))!;
    const html = (await PostalMime.parse(message.raw)).html!;
    const tracked = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&')).find((u) => new URL(u).pathname.startsWith('/t/c/'))!;
    assert.ok(tracked, 'the link is tracked');
    const url = new URL(tracked);
    const res = await fetch(`${t.url}${url.pathname}${url.search}`, { redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), 'https://sender.test/launch');
    await eventually(async () => (await figure('clicked').textContent())?.startsWith('1') ?? false, 15_000, 'clicked 1 on the page');
    const link = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'https://sender.test/launch' }) });
    await link.waitFor();
    assert.deepEqual(await link.getByRole('cell').allTextContents(), ['1', '1']);
    await page.getByLabel('Show', { exact: true }).selectOption('clicked');
    await page.getByRole('rowheader', { name: 'ann@example.org' }).waitFor();
    assert.equal(await page.getByRole('rowheader', { name: 'bob@example.org' }).count(), 0);
    await assertAccessible(page, 'broadcast, clicked');
    await screenshot(page, 'broadcasts-04-clicked');
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px at 390px`);
    await screenshot(page, 'broadcasts-05-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('composes one from a template, schedules it for "tomorrow at 9am" and cancels it', async () => {
    await page.getByRole('link', { name: '← Broadcasts' }).click();
    await page.getByRole('link', { name: 'Launch news' }).waitFor();
    await assertAccessible(page, 'broadcast list');
    await page.getByRole('link', { name: 'New broadcast' }).click();
    await page.getByLabel('Name (only you see it)', { exact: true }).fill('Monthly');
    await page.getByLabel('From', { exact: true }).fill(FROM);
    await page.getByLabel('Segment', { exact: true }).selectOption({ label: 'Early birds' });
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'Monthly letter (draft)' });
    await page.getByRole('button', { name: 'Use template' }).click();
    await eventually(async () => (await page.getByLabel('HTML', { exact: true }).inputValue()).includes('<h1>This month</h1>'), 5000, 'the template copied');
    assert.equal(await page.getByLabel('Subject', { exact: true }).inputValue(), 'This month');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('heading', { name: 'Monthly' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').at(-1)!;

    await page.getByLabel('At a time', { exact: true }).check();
    await page.getByLabel('Send at', { exact: true }).fill('tomorrow at 9am');
    await page.getByRole('button', { name: 'Schedule…' }).click();
    await page.getByRole('dialog', { name: 'Schedule this broadcast for “tomorrow at 9am”?' }).getByRole('button', { name: 'Schedule' }).click();
    await page.locator('.status', { hasText: /^scheduled$/ }).waitFor();
    const scheduled = await get(`/broadcasts/${id}`);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    assert.equal(new Date(scheduled.scheduled_at.replace(' ', 'T').replace(/\+00$/, 'Z')).toISOString(), `${tomorrow}T09:00:00.000Z`);
    await assertAccessible(page, 'broadcast, scheduled');
    await screenshot(page, 'broadcasts-06-scheduled');

    await page.getByRole('button', { name: 'Cancel the scheduled send' }).click();
    await page.getByRole('dialog', { name: 'Cancel this broadcast?' }).getByRole('button', { name: 'Cancel the send' }).click();
    await page.locator('.status', { hasText: /^canceled$/ }).waitFor();
    assert.equal((await get(`/broadcasts/${id}`)).status, 'canceled');
    assert.equal(t.sink.messages.length, 3, 'nothing more was sent');
    await screenshot(page, 'broadcasts-07-canceled');
  });

  it('copies a template with only the merge tags sending takes, flags an unknown tag as it is typed, and sends', async () => {
    // The template's own variable NAME is the API caller's to give: a broadcast has no value for it.
    const template = await t.resend.templates.create({
      name: 'Greeting',
      subject: 'A word for {{{NAME}}}',
      html: '<p>Hello {{{NAME|friend}}} and {{{FIRST_NAME|there}}}</p>',
      text: 'Hello {{{NAME|friend}}}',
      variables: [{ key: 'NAME', type: 'string', fallbackValue: 'pal' }],
    });
    assert.equal(template.error, null, JSON.stringify(template.error));
    await page.getByRole('link', { name: '← Broadcasts' }).click();
    await page.getByRole('link', { name: 'New broadcast' }).click();
    await page.getByLabel('Name (only you see it)', { exact: true }).fill('Greeting');
    await page.getByLabel('From', { exact: true }).fill(FROM);
    await page.getByLabel('Segment', { exact: true }).selectOption({ label: 'Early birds' });
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'Greeting (draft)' });
    await page.getByRole('button', { name: 'Use template' }).click();
    const html = page.getByLabel('HTML', { exact: true });
    await eventually(
      async () => (await html.inputValue()) === '<p>Hello friend and {{{FIRST_NAME|there}}}</p>',
      5000,
      'the template copied, NAME replaced by its fallback',
    );
    assert.equal(await page.getByLabel('Subject', { exact: true }).inputValue(), 'A word for pal');
    assert.equal(await page.getByLabel(/^Text/).inputValue(), 'Hello friend');
    await page.getByRole('status').filter({ hasText: '{{{NAME}}} → “pal” or “friend”' }).waitFor();
    const tags = page.locator('#broadcast-merge-tags');
    for (const tag of ['{{{FIRST_NAME}}}', '{{{EMAIL}}}', '{{{RESEND_UNSUBSCRIBE_URL}}}']) await tags.getByText(tag, { exact: true }).waitFor();
    const warning = page.locator('#broadcast-tags-warning');
    assert.equal(await warning.textContent(), '', 'no unknown tag left');

    // Said while writing, not at send time: a tag sending would refuse, then the fix.
    await html.fill('<p>Hello friend, your code is {{{COUPON}}}</p>');
    await warning.getByText('Unknown merge tag {{{COUPON}}} (in HTML): the broadcast cannot be sent with it.', { exact: false }).waitFor();
    await assertAccessible(page, 'compose with an unknown merge tag');
    await screenshot(page, 'broadcasts-08-unknown-tag');
    await html.fill('<p>Hello friend and {{{FIRST_NAME|there}}}</p>');
    await eventually(async () => (await warning.textContent()) === '', 5000, 'the warning gone once the tag is known');

    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('heading', { name: 'Greeting' }).waitFor();
    await page.getByRole('button', { name: 'Send now…' }).click();
    await page.getByRole('dialog', { name: 'Send this broadcast now?' }).getByRole('button', { name: 'Send now' }).click();
    await t.sink.waitFor(6);
    await page.locator('.status', { hasText: /^sent$/ }).waitFor({ timeout: 20_000 });
    const greeting = t.sink.messages.slice(3).map((m) => m.raw.toString());
    assert.ok(
      greeting.every((raw) => raw.includes('Hello friend and there') && raw.includes('Subject: A word for pal')),
      'each contact got the copy',
    );
    await screenshot(page, 'broadcasts-09-template-sent');
  });
});
