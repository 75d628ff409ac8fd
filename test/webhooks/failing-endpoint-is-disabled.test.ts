import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { eventually, publishMx, send, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

describe('webhooks: an endpoint failing for POSTLINE_WEBHOOK_DISABLE_AFTER is disabled', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await startWebhookTest({ POSTLINE_WEBHOOK_DISABLE_AFTER: '1s', POSTLINE_WEBHOOK_RETRY_DELAYS: '200ms,200ms,200ms,200ms,200ms,200ms,200ms,200ms' });
    publishMx(t, 'inbox.test');
    receiver = await new WebhookReceiver(t.resend).start();
  });
  after(async () => {
    await t.stop();
    await receiver.stop();
  });

  it('disables it, stops sending, and resumes the waiting messages when it is enabled again', async () => {
    const webhookId = await subscribe(t, receiver, ['email.sent']);
    let failing = true;
    receiver.answer = () => (failing ? { status: 500 } : { status: 200 });
    const first = await send(t, { to: 'a@inbox.test' });
    const disabled = await eventually(
      async () => {
        const { data } = await t.resend.webhooks.get(webhookId);
        return data?.status === 'disabled' && data;
      },
      10_000,
      'the endpoint to be disabled',
    );
    assert.equal(disabled.status, 'disabled');
    // Disabled only after failing for a second: the attempts span it (their number depends on
    // the machine's speed, one every 200 ms at best).
    const firstAttempts = receiver.requests.length;
    assert.ok(firstAttempts >= 2, `${firstAttempts} attempts`);
    const failedFor = receiver.requests.at(-1)!.receivedAt - receiver.requests[0]!.receivedAt;
    assert.ok(failedFor >= 800, `disabled after failing for ${failedFor} ms`);

    // While disabled: nothing is sent, new events are not fanned out to it.
    const second = await send(t, { to: 'b@inbox.test' });
    await fannedOut(t, second);
    assert.equal(receiver.requests.length, firstAttempts);
    const { data: log } = await t.resend.webhooks.events.list({ webhookId });
    assert.equal(log!.data.length, 1);
    assert.equal(log!.data[0]!.status, 'attempting');
    assert.equal((log!.data[0] as any).next_attempt_at, null, 'no attempt is due while disabled');

    // Enabled again, healthy: the waiting message goes out; the second email's event never will.
    failing = false;
    await t.resend.webhooks.update(webhookId, { status: 'enabled' });
    await receiver.waitUntil(() => receiver.unique.size === 1, 5_000);
    assert.equal(receiver.payloads()[0].data.email_id, first);
    // No message was made for it (the fan-out passed it while the endpoint was disabled).
    const [{ n }] = await t.sql(`SELECT count(*)::int AS n FROM webhook_messages m JOIN events e ON e.id = m.event_id WHERE e.email_id = $1`, [second]);
    assert.equal(n, 0);
    assert.ok(!receiver.payloads().some((p) => p.data.email_id === second));
    assert.equal((await t.resend.webhooks.get(webhookId)).data!.status, 'enabled');
    const [row] = await t.sql('SELECT failing_since FROM webhooks WHERE id = $1', [webhookId]);
    assert.equal(row.failing_since, null, 'a success clears the failure clock');
  });
});

/** Until the webhook fan-out's cursor has passed every event of this email. */
async function fannedOut(t: TestPostline, emailId: string): Promise<void> {
  await eventually(
    async () => {
      const [row] = await t.sql(
        `SELECT count(*) > 0 AND bool_and((c.last_txid, c.last_id) >= (e.txid, e.id)) AS passed FROM webhook_cursor c, events e WHERE e.email_id = $1`,
        [emailId],
      );
      return row.passed;
    },
    15_000,
    `the fan-out to pass the events of ${emailId}`,
  );
}
