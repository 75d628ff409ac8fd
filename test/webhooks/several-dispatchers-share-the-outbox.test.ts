import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startPostline, type Postline } from '../../src/server.js';
import type { TestPostline } from '../support/postline.js';
import { FROM, recordedEvents, sleep, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

describe('webhooks: several worker nodes dispatch from one outbox', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  const others: Postline[] = [];
  before(async () => {
    t = await startWebhookTest();
    const databaseUrl = (t.postline.db.pool as any).options.connectionString as string;
    for (let i = 0; i < 2; i++) {
      others.push(await startPostline({ ...t.postline.config, databaseUrl, port: 0 }, { roles: ['worker'], logger: t.postline.logger }));
    }
    receiver = await new WebhookReceiver(t.resend).start();
  });
  after(async () => {
    for (const other of others) await other.stop();
    await t.stop();
    await receiver.stop();
  });

  it('fans every event out once and sends each message once', async () => {
    await subscribe(t, receiver, ['email.sent', 'email.delivered']);
    const ids: string[] = [];
    for (let round = 0; round < 3; round++) {
      const { data, error } = await t.resend.batch.send(
        Array.from({ length: 50 }, (_, i) => ({ from: FROM, to: [`delivered+${round}-${i}@resend.dev`], subject: `#${i}`, html: '<p>x</p>' })),
      );
      assert.equal(error, null);
      ids.push(...data!.data.map((d) => d.id));
    }
    await receiver.waitUntil(() => receiver.unique.size >= 300, 30_000, '300 webhooks');
    await sleep(500); // a negative check: a doubled webhook would have arrived by now
    const recorded = await recordedEvents(t, ids);
    assert.equal(recorded.length, 300);
    assert.deepEqual(
      receiver
        .payloads()
        .map((p) => `${p.type} ${p.data.email_id}`)
        .sort(),
      recorded.map((e) => `${e.type} ${e.email_id}`).sort(),
    );
    assert.equal(receiver.requests.length, 300, 'no message was sent twice');
    assert.deepEqual(receiver.rejected, []);
    const [{ n }] = await t.sql('SELECT count(*)::int AS n FROM webhook_messages');
    assert.equal(n, 300);
  });
});
