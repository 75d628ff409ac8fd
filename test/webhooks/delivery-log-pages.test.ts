import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { eventually, send, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

describe("webhooks: an endpoint's delivery log, page by page", () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  let webhookId: string;
  before(async () => {
    t = await startWebhookTest();
    receiver = await new WebhookReceiver(t.resend).start();
    receiver.answer = () => ({ status: 202, body: '{"received":true}' });
    webhookId = await subscribe(t, receiver, ['email.sent']);
    for (let i = 0; i < 5; i++) await send(t, { to: `delivered+${i}@resend.dev`, subject: `#${i}` });
    await receiver.waitUntil(() => receiver.unique.size === 5);
    // The receiver has answered; the outcomes commit a moment later.
    await eventually(
      async () => {
        const { data } = await t.resend.webhooks.events.list({ webhookId });
        return data?.data.length === 5 && data.data.every((m) => m.status === 'success');
      },
      5_000,
      'five delivered messages',
    );
  });
  after(async () => {
    await t.stop();
    await receiver.stop();
  });

  it('lists messages newest first with their state, in pages both ways', async () => {
    const all = await t.resend.webhooks.events.list({ webhookId });
    assert.equal(all.error, null);
    assert.equal(all.data!.has_more, false);
    const messages = all.data!.data;
    assert.equal(messages.length, 5);
    const subjects = messages.map((m) => JSON.parse(receiver.unique.get(m.id)!.body).data.subject);
    assert.deepEqual(subjects, ['#4', '#3', '#2', '#1', '#0']);
    for (const m of messages as any[]) {
      assert.deepEqual(Object.keys(m).sort(), ['attempts', 'created_at', 'id', 'next_attempt_at', 'status', 'type']);
      assert.equal(m.status, 'success');
      assert.equal(m.type, 'email.sent');
      assert.equal(m.attempts, 1);
      assert.equal(m.next_attempt_at, null);
    }

    const first = await t.resend.webhooks.events.list({ webhookId, limit: 2 });
    assert.deepEqual(
      first.data!.data.map((m) => m.id),
      messages.slice(0, 2).map((m) => m.id),
    );
    assert.equal(first.data!.has_more, true);
    const second = await t.resend.webhooks.events.list({ webhookId, limit: 2, after: messages[1]!.id });
    assert.deepEqual(
      second.data!.data.map((m) => m.id),
      messages.slice(2, 4).map((m) => m.id),
    );
    const last = await t.resend.webhooks.events.list({ webhookId, limit: 2, after: messages[3]!.id });
    assert.deepEqual(
      last.data!.data.map((m) => m.id),
      [messages[4]!.id],
    );
    assert.equal(last.data!.has_more, false);
    const back = await fetch(`${t.url}/webhooks/${webhookId}/events?limit=2&before=${messages[4]!.id}`, {
      headers: { authorization: `Bearer ${t.apiKey}` },
    }).then((r) => r.json());
    assert.deepEqual(
      back.data.map((m: any) => m.id),
      messages.slice(2, 4).map((m) => m.id),
    );
  });

  it('shows a message with the exact payload that was sent, and its attempt', async () => {
    const [message] = (await t.resend.webhooks.events.list({ webhookId, limit: 1 })).data!.data;
    const got = await t.resend.webhooks.events.get({ webhookId, eventId: message!.id });
    assert.equal(got.error, null);
    assert.equal(got.data!.object, 'webhook_event');
    assert.equal(got.data!.id, message!.id);
    assert.equal(JSON.stringify(got.data!.payload), receiver.unique.get(message!.id)!.body);
    const attempts = await t.resend.webhooks.events.attempts.list({ webhookId, eventId: message!.id });
    assert.equal(attempts.data!.data.length, 1);
    assert.equal(attempts.data!.data[0]!.http_status_code, 202);
    assert.equal(attempts.data!.data[0]!.response, '{"received":true}');
  });
});
