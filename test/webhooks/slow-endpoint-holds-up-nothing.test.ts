import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { eventually, publishMx, recordedEvents, send, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

// A held-up webhook would wait for the stuck endpoint's timeout; the test sets it long (5 s)
// so that the limits below can be half of it and still leave a loaded machine room.
const TIMEOUT_MS = 5_000;

describe('webhooks: an endpoint that never answers holds up neither other endpoints nor mail', () => {
  let t: TestPostline;
  let stuck: WebhookReceiver;
  let healthy: WebhookReceiver;
  let stuckId: string;
  before(async () => {
    // Few slots, so the stuck endpoint could take them all if limits per endpoint failed.
    t = await startWebhookTest({
      POSTLINE_WEBHOOK_TIMEOUT: `${TIMEOUT_MS}ms`,
      POSTLINE_WEBHOOK_CONCURRENCY: '4',
      POSTLINE_WEBHOOK_CONCURRENCY_PER_ENDPOINT: '2',
      POSTLINE_WEBHOOK_RETRY_DELAYS: '10s',
    });
    publishMx(t, 'inbox.test');
    stuck = await new WebhookReceiver(t.resend).start();
    stuck.answer = () => ({ hang: true });
    healthy = await new WebhookReceiver(t.resend).start();
    stuckId = await subscribe(t, stuck, ['email.sent', 'email.delivered']);
    await subscribe(t, healthy, ['email.sent', 'email.delivered']);
  });
  after(async () => {
    await t.stop();
    await Promise.all([stuck.stop(), healthy.stop()]);
  });

  it('delivers mail and the healthy endpoint’s webhooks promptly while the other hangs', async () => {
    const before = t.sink.messages.length;
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await send(t, { to: `user${i}@inbox.test` }));
    await t.sink.waitFor(before + 20, 10_000);
    await eventually(async () => (await recordedEvents(t, ids)).filter((e) => e.type === 'email.delivered').length === 20, 10_000);
    const recorded = await recordedEvents(t, ids);
    await healthy.waitUntil(() => healthy.unique.size >= 40, 10_000, '40 webhooks at the healthy endpoint');

    // Each event reached the healthy endpoint well within the stuck one's timeout.
    const createdAt = new Map(recorded.map((e) => [`${e.type} ${e.email_id}`, e.created_at.getTime()]));
    const delays = healthy.payloads().map((p) => {
      const received = [...healthy.unique.values()].find((w) => w.payload === p)!.receivedAt;
      return received - createdAt.get(`${p.type} ${p.data.email_id}`)!;
    });
    assert.ok(Math.max(...delays) < TIMEOUT_MS / 2, `slowest webhook took ${Math.max(...delays)} ms`);
    assert.deepEqual(healthy.rejected, []);

    // The stuck endpoint never had more than its own two attempts open at once.
    assert.ok(stuck.requests.length >= 2);
    assert.ok(stuck.requests.length <= 4, `${stuck.requests.length} requests reached the stuck endpoint`);
  });

  it('logs the stuck attempts as timeouts and schedules their retries', async () => {
    const message = await eventually(
      async () => {
        const { data } = await t.resend.webhooks.events.list({ webhookId: stuckId, limit: 100 });
        return data?.data.find((m) => m.status === 'attempting');
      },
      TIMEOUT_MS + 10_000,
      'a timed-out message',
    );
    assert.ok((message as any).next_attempt_at, 'a retry is scheduled');
    const attempts = await t.resend.webhooks.events.attempts.list({ webhookId: stuckId, eventId: message.id });
    const attempt = attempts.data!.data[0]! as any;
    assert.equal(attempt.http_status_code, 0);
    assert.equal(attempt.response, `timed out after ${TIMEOUT_MS} ms`);
    assert.ok(attempt.latency_ms >= TIMEOUT_MS - 100 && attempt.latency_ms < 2 * TIMEOUT_MS, `latency ${attempt.latency_ms}`);
  });
});
