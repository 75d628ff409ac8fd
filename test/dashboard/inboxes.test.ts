// Inboxes in a real browser: real mail reaches an inbox's address over SMTP (nodemailer, as a
// remote MTA hands it over), one message with hostile HTML. The list shows the inbox with its
// unread count; the inbox shows its threads by folder and finds one with the API's full-text
// search; a thread's HTML renders in the mail viewer's sandboxed frame and nothing of it runs;
// marking read, archiving, trashing and a text reply go through the API, and the reply reaches
// the sender's MX as the thread's answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eventually } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { delivered, receive, startInboxTest } from '../inboxes/support.js';
import { assertAccessible, openWatchedPage, screenshot } from './browser.js';

const ORDER = 'Order 42 is missing';
const INVOICE = 'Invoice question';
const HTML = [
  '<h1>Where is my parcel?</h1>',
  '<img src=x onerror="window.parent.__pwned=1; alert(1)">',
  '<script>parent.__pwned=1; window.__pwned=1; alert(2)</script>',
].join('\n');

describe('dashboard: inboxes, their threads by folder, search, reading and answering a thread', () => {
  let t: TestPostline;
  let inboxId: string;
  let browser: Browser;
  let page: Page;
  let dialogs: string[];
  let pwned: () => Promise<unknown>;

  const threadOf = async (subject: string) => {
    const { data } = await t.resend.inboxes.threads.list({ inboxId, folders: ['inbox', 'archive', 'trash', 'sent', 'spam'] });
    return data!.data.find((thread) => thread.subject === subject)!;
  };
  const threadRow = (subject: string) => page.getByRole('row').filter({ has: page.getByRole('link', { name: subject, exact: true }) });

  before(async () => {
    ({ t, inboxId } = await startInboxTest());
    await receive(t, { from: 'Alice Remote <alice@remote.test>', subject: ORDER, messageId: '<a1@remote.test>', text: 'My parcel never arrived.', html: HTML });
    await receive(t, { from: 'Bob Remote <bob@remote.test>', subject: INVOICE, messageId: '<b1@remote.test>', text: 'Can I get a copy of invoice 7?' });
    await eventually(async () => (await t.resend.inboxes.get(inboxId)).data?.unread === 2, 15_000, 'both threads filed');
    ({ browser, page, dialogs, pwned } = await openWatchedPage({ url: t.url, db: t.postline.db }, 'agent@inboxes.postline.test'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("lists the account's inboxes: address, name, unread count, last received", async () => {
    await page.goto(`${t.url}/dashboard/`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inboxes' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'support@support.test' }) });
    await row.waitFor();
    const cells = await row.getByRole('cell').allTextContents();
    assert.deepEqual(cells.slice(0, 2), ['Customer support', '2']);
    assert.notEqual(cells[2], 'never');
    await assertAccessible(page, 'inbox list');
    await screenshot(page, 'inboxes-01-list');
  });

  it('shows the inbox folder, each thread unread with its participants and count, and finds one by full-text search', async () => {
    await page.getByRole('link', { name: 'support@support.test' }).click();
    await page.getByRole('heading', { name: 'Customer support' }).waitFor();
    await threadRow(INVOICE).waitFor();
    const cells = await threadRow(ORDER).getByRole('cell').allTextContents();
    assert.deepEqual(cells.slice(0, 2), ['Alice Remote <alice@remote.test>, support@support.test', '1']);
    assert.match((await threadRow(ORDER).getByRole('rowheader').textContent())!, /unread/);
    assert.equal(await page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: 'Inbox' }).getAttribute('aria-current'), 'page');
    await assertAccessible(page, 'an inbox folder');
    await screenshot(page, 'inboxes-02-threads');

    await page.getByLabel("Search this inbox's threads").fill('parcel');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('heading', { name: 'Threads matching “parcel”' }).waitFor();
    await threadRow(ORDER).waitFor();
    assert.equal(await threadRow(INVOICE).count(), 0);
    await screenshot(page, 'inboxes-03-search');
    await page.getByRole('button', { name: 'Clear' }).click();
    await threadRow(INVOICE).waitFor();
  });

  it("opens a thread: the message's HTML sandboxed, nothing runs; marks it read through the API", async () => {
    await page.getByRole('link', { name: ORDER, exact: true }).click();
    await page.getByRole('heading', { name: ORDER }).waitFor();
    await page.getByRole('heading', { name: 'Alice Remote <alice@remote.test>' }).waitFor();
    assert.equal(await page.locator('iframe.preview').getAttribute('sandbox'), '', 'no allow-scripts, no allow-same-origin');
    await page.frameLocator('iframe.preview').getByRole('heading', { name: 'Where is my parcel?' }).waitFor();
    assert.equal(await pwned(), undefined);
    assert.deepEqual(dialogs, []);
    await page.getByRole('button', { name: 'Mark as read' }).click();
    await page.getByRole('button', { name: 'Mark as unread' }).waitFor();
    assert.equal((await threadOf(ORDER)).read, true);
    assert.equal((await t.resend.inboxes.get(inboxId)).data?.unread, 1);
    await assertAccessible(page, 'a thread');
  });

  it("replies from the inbox: the answer reaches the sender's MX in the thread and shows under the message", async () => {
    await page.getByLabel('Message').fill('We are looking into it.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByRole('status').filter({ hasText: 'Reply sent.' }).waitFor();
    const sent = await delivered(t, 'alice@remote.test', `Re: ${ORDER}`);
    assert.equal(sent.inReplyTo, '<a1@remote.test>');
    assert.equal(sent.text?.trim(), 'We are looking into it.');
    await page.getByRole('heading', { name: /support@support\.test/ }).waitFor();
    await page.getByText('We are looking into it.').waitFor();
    assert.equal((await threadOf(ORDER)).email_count, 2);
    await screenshot(page, 'inboxes-04-thread-replied');
  });

  it('archives a thread and trashes another: each leaves the inbox folder for its own', async () => {
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByText('In Archive').waitFor();
    assert.equal((await threadOf(ORDER)).folder, 'archive');
    await page.getByRole('link', { name: /← Customer support · Archive/ }).click();
    await threadRow(ORDER).waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: 'Archive' }).getAttribute('aria-current'), 'page');

    await page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: 'Inbox' }).click();
    await threadRow(INVOICE).waitFor();
    assert.equal(await threadRow(ORDER).count(), 0);
    await page.getByRole('link', { name: INVOICE, exact: true }).click();
    await page.getByRole('button', { name: 'Move to trash' }).click();
    await page.getByText('In Trash').waitFor();
    assert.equal((await threadOf(INVOICE)).folder, 'trash');
    await page.getByRole('link', { name: /← Customer support · Trash/ }).click();
    await threadRow(INVOICE).waitFor();
    await page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: 'Inbox' }).click();
    await page.getByText('No threads in Inbox.').waitFor();
  });

  it('reads at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/dashboard/inboxes/${inboxId}/archive`);
    await page.getByRole('link', { name: ORDER, exact: true }).click();
    await page.frameLocator('iframe.preview').getByRole('heading', { name: 'Where is my parcel?' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page itself does not scroll sideways (${overflow}px)`);
    await screenshot(page, 'inboxes-05-phone');
  });
});
