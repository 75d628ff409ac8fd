// POSTLINE_WEBHOOK_LOG_RETENTION_DAYS: finished webhook messages and their attempts older than
// the retention are deleted by the dispatcher's housekeeping (at start, then every 10
// minutes); younger ones stay. The test cannot wait days: it moves messages' creation back in
// the database, the one clock the purge reads.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { eventually, send, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

describe('webhooks: the delivery log is purged after POSTLINE_WEBHOOK_LOG_RETENTION_DAYS', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  let webhookId: string;
  /** Message id per subject. */
  const messages = new Map<string, string>();
  before(async () => {
    t = await startWebhookTest({ POSTLINE_WEBHOOK_LOG_RETENTION_DAYS: '3' });
    receiver = await new WebhookReceiver(t.resend).start();
    webhookId = await subscribe(t, receiver, ['email.sent']);
    for (const subject of ['four days old', 'two days old', 'new']) await send(t, { to: 'delivered@resend.dev', subject });
    await receiver.waitUntil(() => receiver.unique.size === 3);
    await eventually(
      async () => {
        const { data } = await t.resend.webhooks.events.list({ webhookId });
        return data?.data.length === 3 && data.data.every((m) => m.status === 'success');
      },
      15_000,
      'three delivered messages',
    );
    for (const [id, webhook] of receiver.unique) messages.set(webhook.payload.data.subject, id);
  });
  after(async () => {
    await t.stop();
    await receiver.stop();
  });

  const age = async (subject: string, days: number) => {
    const id = messages.get(subject)!;
    await t.sql(`UPDATE webhook_messages SET created_at = now() - $2 * interval '1 day' WHERE id = $1`, [id, days]);
    await t.sql(`UPDATE webhook_attempts SET created_at = now() - $2 * interval '1 day' WHERE message_id = $1`, [id, days]);
  };
  const listed = async () => {
    const { data } = await t.resend.webhooks.events.list({ webhookId });
    return data!.data.map((m) => m.id);
  };
  const attemptsOf = async (subject: string) =>
    (await t.sql('SELECT count(*)::int AS n FROM webhook_attempts WHERE message_id = $1', [messages.get(subject)]))[0].n;

  it('with 3 days, deletes the four-day-old message and its attempts, and keeps the younger ones', async () => {
    await age('four days old', 4);
    await age('two days old', 2);
    assert.equal(await attemptsOf('four days old'), 1);
    await t.restart();
    await eventually(async () => !(await listed()).includes(messages.get('four days old')!), 15_000, 'the old message purged');
    assert.equal(await attemptsOf('four days old'), 0);
    assert.deepEqual((await listed()).sort(), [messages.get('two days old')!, messages.get('new')!].sort());
    assert.equal(await attemptsOf('two days old'), 1);
  });

  it('with 1 day, the two-day-old message goes too', async () => {
    await t.restart({ POSTLINE_WEBHOOK_LOG_RETENTION_DAYS: '1' });
    await eventually(async () => !(await listed()).includes(messages.get('two days old')!), 15_000, 'the two-day-old message purged');
    assert.deepEqual(await listed(), [messages.get('new')!]);
  });
});
