// The Emails page in a real browser, against a real MX sink and DNS: an email sent with the
// resend SDK is delivered and listed; the list filters by recipient, subject and last event
// (kept in the URL, so Back returns to the previous filters); an email's page shows its
// timeline, the attempt with the MX host and 250 reply, the preview; a 5xx bounce shows its
// reply; what came back to the return path shows with its verdict; a scheduled email is rescheduled and canceled from its page after a confirmation
// (its page asks for no message it does not have); an email not there has a heading saying so; a
// hostile email (subject, sender name, header, HTML with script and event handlers) shows as
// text and runs nothing on the list or its page.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eventually, publishMx, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';
import { AUTO_REPLIES } from '../inbound/bounce-corpus/auto-replies.js';
import { PERMANENT_FAILURES } from '../inbound/bounce-corpus/permanent-failures.js';
import { deliverInbound } from '../inbound/support.js';
import type { TestPostline } from '../support/postline.js';
import { assertAccessible, openWatchedPage, screenshot, watchFailures } from './browser.js';

const HOSTILE_SUBJECT = '<script>window.__pwned=1</script> Invoice';
const HOSTILE_HTML = [
  '<h1>Visible heading</h1>',
  '<img src=x onerror="window.parent.__pwned=1; alert(1)">',
  '<script>parent.__pwned=1; window.__pwned=1; alert(2)</script>',
  '<svg onload="parent.__pwned=1"></svg>',
].join('\n');

describe('dashboard: emails, their filters and an email page', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let dialogs: string[];
  let pwned: () => Promise<unknown>;
  const ids: Record<string, string> = {};

  before(async () => {
    t = await startDeliveryTest();
    publishMx(t, 'inbox.test', [{ name: 'mx.inbox.test', priority: 10, address: '127.0.0.1' }]);
    publishMx(t, 'strict.test', [{ name: 'mx.strict.test', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = (address) => (address === 'ghost@strict.test' ? { code: 550, message: '5.1.1 No such mailbox here' } : undefined);
    ({ browser, page, dialogs, pwned } = await openWatchedPage({ url: t.url, db: t.postline.db }, 'sender@emails.postline.test'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const subjectsShown = async () => page.locator('table.emails tbody th').allTextContents();
  const filterBy = async (fill: (p: Page) => Promise<unknown>, expected: string[]) => {
    // Applied as typed, a moment after the last change (no button): the URL says when.
    const before = page.url();
    await fill(page);
    await page.waitForURL((url) => url.href !== before);
    // Until the filtered page arrives the list still shows the previous one; none shows the notice.
    await eventually(
      async () => {
        assert.deepEqual(await subjectsShown(), expected);
        return expected.length > 0 || (await page.locator('.notice').count()) > 0;
      },
      10_000,
      `the list filtered to ${JSON.stringify(expected)}`,
    );
  };

  it('says what to do when no email was sent yet', async () => {
    await page.goto(`${t.url}/dashboard/emails`);
    await page.getByText('No emails yet').waitFor();
    await screenshot(page, 'emails-01-empty');
  });

  it('lists an email sent with the SDK once delivered, and filters by recipient, subject and last event', async () => {
    const sent = await t.resend.emails.send({
      from: 'Reports <reports@sender.test>',
      to: 'alice@inbox.test',
      subject: 'Quarterly report',
      html: '<h1>Figures</h1><p>All good.</p>',
      tags: [{ name: 'kind', value: 'report' }],
    });
    assert.equal(sent.error, null);
    ids.report = sent.data!.id;
    ids.bounce = await send(t, { to: 'ghost@strict.test', subject: 'Lost letter' });
    await waitForLastEvent(t, ids.report, 'delivered');
    await waitForLastEvent(t, ids.bounce, 'bounced');
    await page.reload();
    await page.getByRole('link', { name: 'Quarterly report' }).waitFor();
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Quarterly report' }) });
    await row.getByText('delivered').waitFor();
    assert.deepEqual(await subjectsShown(), ['Lost letter', 'Quarterly report']);
    await assertAccessible(page, 'emails list');
    await screenshot(page, 'emails-02-list');

    await filterBy((p) => p.getByLabel('Recipient contains').fill('alice@inbox.test'), ['Quarterly report']);
    assert.match(page.url(), /\?to=alice%40inbox\.test$/);
    await page.getByLabel('Recipient contains').fill('');
    await filterBy((p) => p.getByLabel('Subject contains').fill('LETTER'), ['Lost letter']);
    await page.getByLabel('Subject contains').fill('');
    await filterBy((p) => p.getByLabel('Last event').selectOption('bounced'), ['Lost letter']);
    assert.match(page.url(), /last_event=bounced/);
    await screenshot(page, 'emails-03-filtered');
    await filterBy((p) => p.getByLabel('Last event').selectOption('opened'), []);
    await page.getByText('No email matches these filters').waitFor();
    // Back: the previous filter, its form value and its results.
    await page.goBack();
    await page.waitForFunction(() => location.search === '?last_event=bounced');
    await page.getByRole('link', { name: 'Lost letter' }).waitFor();
    assert.equal(await page.getByLabel('Last event').inputValue(), 'bounced');
    assert.deepEqual(await subjectsShown(), ['Lost letter']);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('link', { name: 'Quarterly report' }).waitFor();
  });

  it("opens an email: facts, timeline, the attempt's MX host and 250 reply, the preview, the raw message", async () => {
    await page.getByRole('link', { name: 'Quarterly report' }).click();
    await page.getByRole('heading', { name: 'Quarterly report', level: 1 }).waitFor();
    await page.getByText('kind: report').waitFor();
    const timeline = page.locator('ol.timeline li');
    await timeline.nth(1).waitFor();
    assert.match((await timeline.allTextContents()).join(' | '), /^sent .*\| delivered .*alice@inbox\.test/);
    const attempt = page.locator('table.attempts tbody tr');
    await attempt.first().waitFor();
    const cells = await attempt.first().getByRole('cell').allTextContents();
    assert.equal(cells[1], 'alice@inbox.test');
    assert.equal(cells[2], 'mx.inbox.test');
    assert.match(cells[3]!, /^250 /);
    assert.equal(cells[4], 'delivered');
    assert.equal(cells[5], 'plain textopportunistic', 'the test MX host offers no STARTTLS, and nothing asked for it');
    await page.frameLocator('iframe.preview').getByRole('heading', { name: 'Figures' }).waitFor();
    assert.equal(await page.locator('iframe.preview').getAttribute('sandbox'), '');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /Download the raw message/ }).click()]);
    assert.equal(download.suggestedFilename(), `${ids.report}.eml`);
    await page.getByRole('tab', { name: 'Headers' }).click();
    await page.getByRole('rowheader', { name: 'DKIM-Signature' }).waitFor();
    await assertAccessible(page, 'email page');
    await screenshot(page, 'emails-04-email');
  });

  it("shows a bounce's 5xx reply in its attempts and timeline", async () => {
    await page.goto(`${t.url}/dashboard/emails/${ids.bounce}`);
    await page.getByRole('heading', { name: 'Lost letter', level: 1 }).waitFor();
    await page.locator('table.attempts tbody tr').first().waitFor();
    const cells = await page.locator('table.attempts tbody tr').first().getByRole('cell').allTextContents();
    assert.equal(cells[2], 'mx.strict.test');
    assert.match(cells[3]!, /^550 5\.1\.1 No such mailbox here/);
    assert.equal(cells[4], 'bounced');
    await page
      .locator('ol.timeline')
      .getByText(/Permanent .*No such mailbox here/)
      .waitFor();
    await screenshot(page, 'emails-05-bounced');
  });

  it("shows what came back to the return path: a bounce in qmail's format and an auto-reply, each with its verdict and why", async () => {
    const id = await send(t, { to: 'carol@inbox.test', subject: 'Came back' });
    await waitForLastEvent(t, id, 'delivered');
    const returnPath = t.sink.messages.find((m) => m.from.includes(id))!.from;
    const qmail = PERMANENT_FAILURES.find((s) => s.family === 'qmail')!;
    const vacation = AUTO_REPLIES.find((s) => s.family.startsWith('vacation'))!;
    for (const sample of [vacation, qmail]) {
      await deliverInbound(t, sample.message(returnPath, 'carol@inbox.test'), { mailFrom: sample.mailFrom, rcptTo: [returnPath] });
    }
    await page.goto(`${t.url}/dashboard/emails/${id}`);
    const rows = page.locator('table.return-path-reports tbody tr');
    await rows.nth(1).waitFor();
    const [autoReply, bounce] = [await rows.nth(0).getByRole('cell').allTextContents(), await rows.nth(1).getByRole('cell').allTextContents()];
    assert.equal(autoReply[2], 'auto reply');
    assert.match(autoReply[3]!, /X-Autoreply/);
    assert.equal(autoReply[4], '—');
    assert.equal(bounce[2], 'bounce');
    assert.match(bounce[3]!, /qmail/);
    assert.match(bounce[4]!, /^carol@inbox\.test · 5\.1\.1 · Permanent \(NoEmail\) · bounced/);
    // The preview frame holds the email's HTML (send()'s "<p>Hello there</p>"), posted to it and
    // served back by Postline, not the empty document a frame starts with.
    const preview = page.frameLocator('iframe.preview');
    await preview.getByText('Hello there').waitFor();
    assert.equal(await preview.locator('body').textContent(), 'Hello there');
    assert.equal(await preview.locator('body').innerHTML(), '<p>Hello there</p>');
    await assertAccessible(page, 'email page with return-path reports');
    await screenshot(page, 'emails-05b-return-path');
  });

  it('reads a long history on with "Show more": the API pages it, the page asks for the next page', async () => {
    // 150 earlier deferrals before the bounce, written as delivery's outcome writer writes attempts.
    await t.sql(
      `INSERT INTO delivery_attempts (email_id, delivery_id, recipient, mx, response, outcome, attempted_at)
       SELECT email_id, id, recipient, 'mx.strict.test', '451 4.3.2 Try again later', 'deferred', now() - interval '1 day' + n * interval '1 second'
         FROM deliveries, generate_series(1, 150) AS n WHERE email_id = $1`,
      [ids.bounce],
    );
    await page.goto(`${t.url}/dashboard/emails/${ids.bounce}`);
    const rows = page.locator('table.attempts tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 100, 'the first page');
    await page.getByRole('button', { name: 'Show more attempts' }).click();
    await page.waitForFunction(() => document.querySelectorAll('table.attempts tbody tr').length === 151);
    assert.equal(await page.getByRole('button', { name: 'Show more attempts' }).count(), 0, 'nothing more to show');
    assert.equal((await rows.last().getByRole('cell').allTextContents())[4], 'bounced', 'oldest first: the bounce last');
  });

  it('reschedules a scheduled email and cancels it, each after a confirmation', async () => {
    const tomorrow = new Date(Date.now() + 86_400_000);
    ids.scheduled = await send(t, { to: 'later@inbox.test', subject: 'For tomorrow', scheduledAt: tomorrow.toISOString() });
    // A scheduled or canceled email has no message yet: its page does not ask for one (a logged 404).
    const watch = watchFailures(page);
    await page.goto(`${t.url}/dashboard/emails/${ids.scheduled}`);
    await page.getByRole('heading', { name: 'Scheduled' }).waitFor();
    await page.getByText('The message is composed and signed at its first delivery attempt').waitFor();
    // Two days ahead, at 09:30 local time.
    const later = new Date(Date.now() + 2 * 86_400_000);
    later.setHours(9, 30, 0, 0);
    const pad = (n: number) => String(n).padStart(2, '0');
    await page.getByLabel('Send at (your time)').fill(`${later.getFullYear()}-${pad(later.getMonth() + 1)}-${pad(later.getDate())}T09:30`);
    await page.getByRole('button', { name: 'Reschedule' }).click();
    const confirm = page.getByRole('dialog', { name: 'Reschedule this email?' });
    await confirm.waitFor();
    await screenshot(page, 'emails-06-reschedule-confirm');
    await confirm.getByRole('button', { name: 'Reschedule' }).click();
    await eventually(
      async () => Date.parse((await t.resend.emails.get(ids.scheduled!)).data!.scheduled_at!.replace(' ', 'T').replace(/\+00$/, 'Z')) === later.getTime(),
    );
    await page.getByRole('button', { name: 'Cancel sending' }).click();
    const cancel = page.getByRole('dialog', { name: 'Cancel this email?' });
    await cancel.getByRole('button', { name: 'Cancel sending' }).click();
    await waitForLastEvent(t, ids.scheduled, 'canceled');
    await page.locator('dl.facts').getByText('canceled').waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Scheduled' }).count(), 0);
    await page.reload();
    // The raw message section has said what it has (with a probe, its answer is in).
    await page.getByText(/^(It was canceled before its first delivery attempt|The message is composed and signed at its first delivery attempt)/).waitFor();
    watch.stop();
    assert.deepEqual(watch.failures, []);
    await page.getByText('It was canceled before its first delivery attempt').waitFor();
    await screenshot(page, 'emails-07-canceled');
  });

  it('gives the page of an email that is not there a heading of its own', async () => {
    await page.goto(`${t.url}/dashboard/emails/${crypto.randomUUID()}`);
    await page.getByRole('heading', { level: 1, name: 'Email not found' }).waitFor();
    await page.getByRole('link', { name: '← Emails' }).waitFor();
    await assertAccessible(page, 'an email not found');
    await screenshot(page, 'emails-07b-not-found');
    // The other pages of one record say it the same way.
    for (const [path, heading] of [
      [`/domains/${crypto.randomUUID()}`, 'Domain not found'],
      [`/templates/${crypto.randomUUID()}`, 'Template not found'],
      [`/broadcasts/${crypto.randomUUID()}`, 'Broadcast not found'],
      [`/webhooks/${crypto.randomUUID()}`, 'Webhook not found'],
    ]) {
      await page.goto(`${t.url}/dashboard${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    }
  });

  it('shows a hostile email as text on the list and its page; nothing of it runs', async () => {
    const sent = await t.resend.emails.send({
      from: '"<img src=x onerror=window.__pwned=1> Mallory" <mallory@sender.test>',
      to: 'alice@inbox.test',
      subject: HOSTILE_SUBJECT,
      html: HOSTILE_HTML,
      text: 'The plain text part <script>window.__pwned=1</script>',
      headers: { 'X-Payload': '<script>window.__pwned=1</script><img src=x onerror="alert(3)">' },
    });
    assert.equal(sent.error, null);
    await waitForLastEvent(t, sent.data!.id, 'delivered');
    await page.goto(`${t.url}/dashboard/emails`);
    await page.getByRole('link', { name: HOSTILE_SUBJECT }).waitFor();
    assert.match((await page.getByRole('cell', { name: /Mallory/ }).textContent()) ?? '', /<img src=x onerror=window.__pwned=1> Mallory/);
    assert.equal(await pwned(), undefined);
    await page.getByRole('link', { name: HOSTILE_SUBJECT }).click();
    await page.getByRole('heading', { name: HOSTILE_SUBJECT }).waitFor();
    await page.frameLocator('iframe.preview').getByRole('heading', { name: 'Visible heading' }).waitFor();
    assert.equal(await page.locator('iframe.preview').getAttribute('sandbox'), '');
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    assert.equal(await frame.evaluate(() => (window as { __pwned?: unknown }).__pwned), undefined);
    // The text part and the headers are tabs of their own (the preview's frame goes while they show).
    await page.getByRole('tab', { name: 'Plain text' }).click();
    await page.getByText('The plain text part <script>window.__pwned=1</script>').waitFor();
    await page.getByRole('tab', { name: 'Headers' }).click();
    const payload = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'X-Payload' }) });
    assert.match((await payload.getByRole('cell').textContent()) ?? '', /^<script>window\.__pwned=1<\/script><img src=x onerror="alert\(3\)">$/);
    assert.equal(await pwned(), undefined);
    assert.deepEqual(dialogs, []);
    await screenshot(page, 'emails-08-hostile');
  });

  it('reads at phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.url}/dashboard/emails`);
    await page.getByRole('link', { name: 'Quarterly report' }).waitFor();
    await screenshot(page, 'emails-09-phone-list');
    await page.goto(`${t.url}/dashboard/emails/${ids.report}`);
    await page.locator('table.attempts').waitFor();
    await screenshot(page, 'emails-10-phone-email');
  });
});
