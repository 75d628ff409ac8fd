// The Webhooks pages in a real browser, against a real receiver on loopback that verifies
// every request with standardwebhooks and the SDK: an endpoint created from the UI with events
// picked from the catalogue; its secret revealed (and used by the receiver); an email sent with
// the resend SDK makes messages the page lists; the receiver fails once, the failed attempt
// (500 and its body) shows on the message's page, and Replay from the UI delivers it. Then the
// secret is rotated after a confirmation and a later delivery verifies with the new one alone;
// the events are edited; disabled, nothing more arrives; deleted after a confirmation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { EMAIL_EVENTS, OTHER_EVENTS } from '../../src/events/catalogue.js';
import { eventually, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { WebhookReceiver } from '../webhooks/support.js';
import { assertAccessible, launchChromium, screenshot, signInNewUser } from './browser.js';
import { overflowing } from './phone-width.js';

describe('dashboard: webhooks, created, watched, replayed, rotated and disabled in a browser', () => {
  let t: TestPostline;
  let browser: Browser;
  let page: Page;
  let receiver: WebhookReceiver;
  let webhookId: string;
  let failNext = false;

  before(async () => {
    // Retries an hour apart: a failed message waits for a person to replay it.
    t = await startDeliveryTest({ POSTLINE_WEBHOOK_ALLOW_PRIVATE: 'true', POSTLINE_WEBHOOK_RETRY_DELAYS: '1h' });
    receiver = await new WebhookReceiver(t.resend).start();
    receiver.answer = () => {
      if (!failNext) return { status: 200, body: 'thanks' };
      failNext = false;
      return { status: 500, body: 'receiver exploded: database is down' };
    };
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await signInNewUser(context, { url: t.url, db: t.postline.db }, 'Default', 'developer@webhooks.postline.test');
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
    await receiver?.stop();
  });

  const revealedSecret = async () => {
    const button = page.getByRole('button', { name: 'Reveal' });
    if (await button.isVisible()) await button.click();
    return (await page.getByTestId('signing-secret').textContent())!;
  };

  it('says what to do on an empty list, and offers every event of the catalogue', async () => {
    await page.goto(`${t.url}/dashboard/webhooks`);
    await page.getByText('No webhooks yet').waitFor();
    const types = [...Object.keys(EMAIL_EVENTS), ...Object.keys(OTHER_EVENTS)];
    await page.getByText(`0 of ${types.length} selected`).waitFor();
    for (const type of types) await page.getByRole('checkbox', { name: type, exact: true }).waitFor();
    // Each checkbox is described by what its event means.
    const described = await page.getByRole('checkbox', { name: 'email.bounced', exact: true }).getAttribute('aria-describedby');
    assert.equal(await page.locator(`[id="${described}"]`).textContent(), EMAIL_EVENTS['email.bounced'].description);
    await assertAccessible(page, 'webhooks, empty');
    await screenshot(page, 'webhooks-01-empty');
  });

  it('creates an endpoint from the UI and opens its page; the secret shows only when asked', async () => {
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('checkbox', { name: 'email.sent', exact: true }).check();
    await page.getByRole('checkbox', { name: 'email.delivered', exact: true }).check();
    await page.getByText('2 of').waitFor();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('heading', { level: 1, name: receiver.url }).waitFor();
    webhookId = page.url().split('/').at(-1)!;
    const stored = (await t.resend.webhooks.get(webhookId)).data!;
    assert.deepEqual(stored.events, ['email.sent', 'email.delivered']);
    assert.equal(stored.endpoint, receiver.url);

    assert.equal(await page.getByTestId('signing-secret').count(), 0, 'hidden until asked');
    assert.equal(await page.getByText(stored.signing_secret).count(), 0);
    receiver.secret = await revealedSecret();
    assert.equal(receiver.secret, stored.signing_secret);
    await page.getByRole('button', { name: 'Copy the signing secret' }).waitFor();
    await page.getByText('No messages yet').waitFor();
  });

  it('lists the messages of an email sent with the SDK; a failed attempt shows its 500 and body', async () => {
    failNext = true;
    const emailId = await send(t, { to: 'delivered@resend.dev' });
    await waitForLastEvent(t, emailId, 'delivered');
    await receiver.waitUntil(() => receiver.requests.length === 2, 15_000, 'one failed and one delivered webhook');
    assert.deepEqual(receiver.rejected, []);
    const failedType = receiver.requests[0]!.payload.type as string;

    const rows = page.getByRole('row').filter({ has: page.getByRole('rowheader') });
    await eventually(async () => (await rows.count()) === 2, 10_000, 'two messages listed');
    const failedRow = rows.filter({ has: page.getByRole('link', { name: failedType }) });
    await failedRow.getByText('attempting').waitFor();
    assert.deepEqual((await failedRow.getByRole('cell').allTextContents()).slice(0, 2), ['attempting', '1']);
    const otherRow = rows.filter({ hasNot: page.getByRole('link', { name: failedType }) });
    await otherRow.getByText('success').waitFor();
    await assertAccessible(page, 'a webhook with messages');
    await screenshot(page, 'webhooks-02-webhook-messages');

    await failedRow.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: failedType }).waitFor();
    const attempt = page.getByRole('row').filter({ hasText: 'receiver exploded' });
    await attempt.waitFor();
    const cells = await attempt.getByRole('cell').allTextContents();
    assert.equal(cells[1], '500');
    assert.match(cells[2]!, /^\d+ ms$/);
    assert.equal(cells[3], 'receiver exploded: database is down');
    await assertAccessible(page, 'a webhook message with a failed attempt');
    await screenshot(page, 'webhooks-03-failed-attempt');
  });

  it('replays the failed message from the UI: a second attempt, 200, and the message succeeds', async () => {
    const failedId = receiver.requests[0]!.id;
    await page.getByRole('button', { name: 'Replay' }).click();
    await page.getByRole('status').getByText('Replay queued').waitFor();
    await receiver.waitUntil(() => receiver.attempts.get(failedId) === 2, 15_000, 'the replayed webhook');
    assert.ok(receiver.unique.has(failedId), 'verified and accepted this time');
    await page.getByRole('row').filter({ hasText: 'thanks' }).waitFor();
    await page.locator('dd').getByText('success').waitFor();
    assert.equal(
      await page
        .getByRole('row')
        .filter({ has: page.getByRole('cell') })
        .count(),
      2,
      'both attempts listed',
    );
    await screenshot(page, 'webhooks-04-replayed');
  });

  it('rotates the secret after a confirmation; a later delivery verifies with the new secret alone', async () => {
    await page.getByRole('link', { name: '← Webhook' }).click();
    await page.getByRole('heading', { level: 1, name: receiver.url }).waitFor();
    const before = await revealedSecret();
    await page.getByRole('button', { name: 'Rotate' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await t.resend.webhooks.get(webhookId)).data!.signing_secret, before, 'cancel changes nothing');
    await page.getByRole('button', { name: 'Rotate' }).click();
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await eventually(async () => (await revealedSecret()) !== before, 10_000, 'the new secret shown');
    const rotated = await revealedSecret();
    assert.equal(rotated, (await t.resend.webhooks.get(webhookId)).data!.signing_secret);
    receiver.secret = rotated;

    const seen = receiver.requests.length;
    const emailId = await send(t, { to: 'delivered@resend.dev', subject: 'After rotation' });
    await waitForLastEvent(t, emailId, 'delivered');
    await receiver.waitUntil(() => receiver.requests.length === seen + 2, 15_000, 'webhooks after the rotation');
    assert.deepEqual(receiver.rejected, []);
    for (const w of receiver.requests.slice(seen)) {
      const headers = { 'webhook-id': w.id, 'webhook-timestamp': w.timestamp, 'webhook-signature': w.signature };
      assert.doesNotThrow(() => new Webhook(rotated).verify(w.body, headers));
      assert.equal(w.payload.data.email_id, emailId);
    }
  });

  it('edits the events: only email.delivered from now on', async () => {
    await page.getByRole('button', { name: 'Edit endpoint and events' }).click();
    const form = page.getByRole('form', { name: 'Edit' });
    await form.getByRole('checkbox', { name: 'email.sent', exact: true }).uncheck();
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.waitFor({ state: 'detached' });
    assert.deepEqual((await t.resend.webhooks.get(webhookId)).data!.events, ['email.delivered']);
    assert.deepEqual(await page.locator('dd .event-list li').allTextContents(), ['email.delivered']);
  });

  it('disables the endpoint: nothing more arrives; at phone width it still reads', async () => {
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Disabled: no new messages').waitFor();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    assert.equal((await t.resend.webhooks.get(webhookId)).data!.status, 'disabled');
    const seen = receiver.requests.length;
    const emailId = await send(t, { to: 'delivered@resend.dev', subject: 'While disabled' });
    await waitForLastEvent(t, emailId, 'delivered');
    await new Promise((r) => setTimeout(r, 1500)); // a negative check: a webhook would have come by now
    assert.equal(receiver.requests.length, seen, 'a disabled endpoint gets nothing');

    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('heading', { level: 1, name: receiver.url }).waitFor();
    assert.deepEqual(await overflowing(page), [], 'no sideways scrolling of the page');
    await assertAccessible(page, 'a disabled webhook at phone width');
    await screenshot(page, 'webhooks-05-disabled-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('lists the endpoint, then deletes it after a confirmation', async () => {
    await page.getByRole('link', { name: '← Webhooks' }).click();
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: receiver.url }) });
    await row.waitFor();
    assert.deepEqual(await row.getByRole('cell').nth(1).textContent(), 'disabled');
    await assertAccessible(page, 'webhooks, one endpoint');
    await screenshot(page, 'webhooks-06-list');
    await row.getByRole('link').click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog', { name: 'Delete this webhook?' }).getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText('No webhooks yet').waitFor();
    assert.equal((await t.resend.webhooks.get(webhookId)).error?.statusCode, 404);
  });
});
