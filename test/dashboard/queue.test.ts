// The Queue page in a real browser: a recipient MX host that answers 451 leaves two emails
// deferred, and the page shows the destination with its counts and the 451; an operator
// pauses it with a reason from the UI, resumes it, and once the host accepts, "Retry now"
// delivers both and the queue is empty; a host that answers 421 shows under the sending rates.
// Real MX sink and DNS, the resend SDK for sending.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eventually, publishMx, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';

describe('dashboard: the queue, seen and repaired in a browser', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let busy = true;

  before(async () => {
    // Retries an hour apart: what is deferred stays so unless someone acts.
    t = await startDeliveryTest({ POSTLINE_RETRY_DELAYS: '1h' });
    publishMx(t, 'busy.test', [{ name: 'mx.busy.test', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = () => (busy ? { code: 451, message: '4.3.0 Mail server temporarily rejected message' } : undefined);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'operator@queue.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const summary = () => page.evaluate(async () => (await fetch('/queue')).json());
  const row = () => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'busy.test' }) });

  it('says the queue is empty before anything is sent', async () => {
    await page.goto(`${t.url}/dashboard/queue`);
    await page.getByText('The queue is empty').waitFor();
    await screenshot(page, 'queue-01-empty');
  });

  it('shows the destination with deferred 2 and the 451 reply', async () => {
    const ids = [await send(t, { to: 'a@busy.test' }), await send(t, { to: 'b@busy.test' })];
    for (const id of ids) await waitForLastEvent(t, id, 'delivery_delayed');
    // The page refreshes itself.
    await row().waitFor();
    const cells = await row().getByRole('cell').allTextContents();
    // provider, due, in flight, deferred, scheduled, paused, oldest, last reply, actions
    assert.deepEqual(cells.slice(0, 6), ['—', '0', '0', '2', '0', '0']);
    assert.match(cells[7]!, /^451 4\.3\.0 Mail server temporarily rejected message/);
    assert.match(cells[7]!, /mx\.busy\.test/);
    await screenshot(page, 'queue-02-deferred');
  });

  it('pauses the destination with a reason asked for in a dialog, and shows it paused', async () => {
    await page.getByRole('button', { name: 'Pause busy.test' }).click();
    const dialog = page.getByRole('dialog', { name: 'Pause busy.test?' });
    await dialog.getByLabel('Reason').fill('Their postmaster asked us to wait');
    await dialog.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('heading', { name: 'Paused' }).waitFor();
    await page.getByText('Their postmaster asked us to wait').waitFor();
    await row().getByRole('button', { name: 'Resume busy.test' }).waitFor();
    const after = await summary();
    assert.deepEqual(
      after.pauses.map((p: any) => [p.destination, p.kind, p.reason]),
      [['busy.test', 'domain', 'Their postmaster asked us to wait']],
    );
    await eventually(async () => (await summary()).destinations[0]?.counts.paused === 2, 10_000, 'both paused');
    await screenshot(page, 'queue-03-paused');
    await assertAccessible(page, 'the queue with a paused destination');
  });

  it('opens the destination: its messages, paused with the reason; resumes it', async () => {
    await row().getByRole('link', { name: 'busy.test' }).click();
    await page.getByRole('heading', { name: 'busy.test' }).waitFor();
    await page.getByText('Paused since').waitFor();
    for (const to of ['a@busy.test', 'b@busy.test']) await page.getByRole('cell', { name: to, exact: true }).waitFor();
    assert.equal(await page.getByRole('cell', { name: 'paused Their postmaster asked us to wait' }).count(), 2);
    // The recipient's MTA-STS policy as looked up at the first attempt: busy.test publishes none.
    await page.getByRole('region', { name: 'MTA-STS policies' }).getByText('MTA-STS of busy.test: none published').waitFor();
    await screenshot(page, 'queue-04-destination-paused');
    await assertAccessible(page, "a paused destination's messages");
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    assert.equal(await page.getByText('Paused since').count(), 0);
    assert.deepEqual((await summary()).pauses, []);
    // Resumed mail is due at once: tried again, and the host still answers 451.
    await eventually(
      async () => {
        const d = (await summary()).destinations[0];
        return d?.counts.deferred === 2 && d.last_reply !== null;
      },
      15_000,
      'deferred again after resuming',
    );
  });

  it('retries now once the host accepts: both delivered, and the queue is empty', async () => {
    busy = false;
    await page.getByRole('button', { name: 'Retry now' }).click();
    await t.sink.waitFor(2);
    await page.getByText('Nothing waits for busy.test').waitFor();
    await page.getByRole('link', { name: '← Queue' }).click();
    await page.getByText('The queue is empty').waitFor();
    assert.equal(await page.getByRole('rowheader', { name: 'busy.test' }).count(), 0);
    assert.deepEqual(t.sink.messages.flatMap((m) => m.to).sort(), ['a@busy.test', 'b@busy.test']);
    await screenshot(page, 'queue-05-delivered');
  });

  it('shows the sending rate of a destination that asked Postline to slow down', async () => {
    publishMx(t, 'slow.test', [{ name: 'mx.slow.test', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = (rcpt) => (rcpt.endsWith('@slow.test') ? { code: 421, message: '4.7.0 Too many messages, slow down' } : undefined);
    await send(t, { to: 'c@slow.test' });
    // The worker publishes its shaping every 5 s.
    await eventually(async () => (await summary()).shaping.length > 0, 15_000, 'a shaping state');
    await page.reload();
    const rates = page.getByRole('table', { name: 'Sending rates' });
    const slowed = rates.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'mx.slow.test' }) });
    await slowed.waitFor();
    assert.match((await slowed.textContent()) ?? '', /slowed down.*421 4\.7\.0 Too many messages, slow down/);
    await assertAccessible(page, 'the queue with sending rates');
    await screenshot(page, 'queue-06-sending-rates');
  });
});
