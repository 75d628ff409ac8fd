import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { eventually, publishMx, recordedEvents, send, sleep, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

// Retry delays 100ms, 200ms, 300ms: four attempts in all, over about 0.6 s.
describe('webhooks: a receiver that fails is retried on schedule with the same svix-id', () => {
  let t: TestPostline;
  before(async () => {
    t = await startWebhookTest();
    publishMx(t, 'inbox.test');
  });
  after(() => t.stop());

  it('keeps retrying while the receiver answers 500, and delivers once it is back', async () => {
    const receiver = await new WebhookReceiver(t.resend).start();
    try {
      await subscribe(t, receiver, ['email.sent', 'email.delivered']);
      let down = true;
      receiver.answer = () => (down ? { status: 500, body: 'database is down' } : { status: 200 });
      const ids = [await send(t, { to: 'a@inbox.test' }), await send(t, { to: 'b@inbox.test' })];
      // Two failed attempts of each message (the first at once, the second 100 ms later).
      await receiver.waitUntil(() => receiver.requests.length >= 8 && [...receiver.attempts.values()].every((n) => n >= 2));
      down = false;
      await receiver.waitUntil(() => receiver.unique.size === 4, 10_000, '4 unique webhooks');
      await sleep(800); // a message retried or doubled after its success would show by now

      const recorded = await recordedEvents(t, ids);
      assert.equal(recorded.length, 4);
      assert.deepEqual(
        receiver
          .payloads()
          .map((p) => `${p.type} ${p.data.email_id}`)
          .sort(),
        recorded.map((e) => `${e.type} ${e.email_id}`).sort(),
      );
      assert.deepEqual(receiver.rejected, []);
      // Every retry carried the same svix-id (4 ids in all) and each stopped at its first 2xx.
      assert.equal(receiver.attempts.size, 4);
      for (const [id, n] of receiver.attempts) {
        const requests = receiver.requests.filter((r) => r.id === id);
        assert.equal(requests.length, n);
        assert.ok(n >= 2 && n <= 4, `${id}: ${n} attempts`);
        assert.ok(
          requests.every((r) => r.body === requests[0]!.body),
          'the same body on every attempt',
        );
        const times = requests.map((r) => r.receivedAt);
        for (let i = 1; i < times.length; i++) assert.ok(times[i]! - times[i - 1]! >= 80, `retry ${i} after ${times[i]! - times[i - 1]!} ms`);
      }
      const states = await t.sql(`SELECT status, count(*)::int AS n FROM webhook_messages GROUP BY status`);
      assert.deepEqual(states, [{ status: 'success', n: 4 }]);
    } finally {
      await receiver.stop();
    }
  });

  it('fails a message after the last attempt, logs every attempt, and replays it with the same svix-id', async () => {
    const receiver = await new WebhookReceiver(t.resend).start();
    try {
      const webhookId = await subscribe(t, receiver, ['email.sent']);
      let status = 503;
      receiver.answer = () => ({ status, body: 'x'.repeat(3000) });
      await send(t, { to: 'c@inbox.test' });
      await receiver.waitUntil(() => receiver.requests.length >= 4);
      const list = await eventually(
        async () => {
          const { data } = await t.resend.webhooks.events.list({ webhookId });
          return data?.data[0]?.status === 'failed' && data;
        },
        5_000,
        'a failed message',
      );
      assert.equal(list.object, 'list');
      const message = list.data[0]! as any;
      assert.equal(message.type, 'email.sent');
      assert.equal(message.attempts, 4, 'the first attempt and one per retry delay');
      assert.equal(message.next_attempt_at, null);
      assert.equal(message.id, receiver.requests[0]!.id);
      await sleep(500); // a negative check: no attempt after the last one
      assert.equal(receiver.requests.length, 4, 'no attempt after the last one');

      const attempts = await t.resend.webhooks.events.attempts.list({ webhookId, eventId: message.id });
      assert.equal(attempts.error, null);
      assert.equal(attempts.data!.data.length, 4);
      for (const attempt of attempts.data!.data as any[]) {
        assert.deepEqual(Object.keys(attempt).sort(), ['http_status_code', 'id', 'latency_ms', 'response', 'sent_at']);
        assert.equal(attempt.http_status_code, 503);
        assert.equal(attempt.response, 'x'.repeat(1024), 'the first KB of the response');
        assert.ok(Number.isInteger(attempt.latency_ms) && attempt.latency_ms >= 0);
        assert.match(attempt.sent_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/);
      }
      const sentTimes = (attempts.data!.data as any[]).map((a) => Date.parse(a.sent_at.replace(' ', 'T').replace('+00', 'Z')));
      assert.ok(sentTimes[0]! >= sentTimes[1]!, 'newest first');

      status = 200;
      const replayed = await t.resend.webhooks.events.replay({ webhookId, eventId: message.id });
      assert.deepEqual(replayed.data, { object: 'webhook_event', id: message.id });
      await receiver.waitUntil(() => receiver.unique.size === 1);
      assert.equal(receiver.requests.at(-1)!.id, message.id);
      assert.equal(receiver.requests.at(-1)!.body, receiver.requests[0]!.body);
      const got = await eventually(
        async () => {
          const { data } = await t.resend.webhooks.events.get({ webhookId, eventId: message.id });
          return data?.status === 'success' && data;
        },
        5_000,
        'the replay to succeed',
      );
      assert.equal(got.object, 'webhook_event');
      assert.equal(got.payload.type, 'email.sent');
      assert.deepEqual(got.payload, JSON.parse(receiver.requests[0]!.body));
      assert.equal((got as any).attempts, 5);

      // A delivered message can be replayed too: one more attempt, same svix-id.
      await t.resend.webhooks.events.replay({ webhookId, eventId: message.id });
      await receiver.waitUntil(() => receiver.requests.length === 6);
      assert.equal(receiver.requests.at(-1)!.id, message.id);
      assert.deepEqual(receiver.rejected, []);
    } finally {
      await receiver.stop();
    }
  });

  it('retries an endpoint that refuses connections, logging status 0 and the error', async () => {
    const receiver = await new WebhookReceiver(t.resend).start();
    const port = receiver.port;
    await receiver.stop(); // nothing listens on its port now
    const webhookId = await subscribe(t, receiver, ['email.sent']);
    await send(t, { to: 'd@inbox.test' });
    const message = await eventually(
      async () => {
        const { data } = await t.resend.webhooks.events.list({ webhookId });
        return data?.data[0]?.status === 'failed' && data.data[0];
      },
      5_000,
      'a message failed after four refused connections',
    );
    const attempts = await t.resend.webhooks.events.attempts.list({ webhookId, eventId: message.id });
    assert.equal(attempts.data!.data.length, 4);
    for (const attempt of attempts.data!.data) {
      assert.equal(attempt.http_status_code, 0);
      assert.match(attempt.response, /ECONNREFUSED/);
    }

    // The receiver comes back on the same port; a replay delivers the message.
    const back = await new WebhookReceiver(t.resend).start(port);
    back.secret = receiver.secret;
    try {
      await t.resend.webhooks.events.replay({ webhookId, eventId: message.id });
      await back.waitUntil(() => back.unique.size === 1, 5_000);
      assert.equal(back.requests[0]!.id, message.id);
      assert.deepEqual(back.rejected, []);
    } finally {
      await back.stop();
    }
  });
});
