import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { send, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

describe('webhooks: messages waiting for a retry survive a restart', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await startWebhookTest({ POSTLINE_WEBHOOK_RETRY_DELAYS: '1s' });
    receiver = await new WebhookReceiver(t.resend).start();
  });
  after(async () => {
    await t.stop();
    await receiver.stop();
  });

  it('retries after the restart with the same svix-id', async () => {
    await subscribe(t, receiver, ['email.sent']);
    let up = false;
    receiver.answer = () => ({ status: up ? 200 : 500 });
    await send(t, { to: 'delivered@resend.dev' });
    await receiver.waitUntil(() => receiver.requests.length === 1);
    await t.restart();
    up = true;
    await receiver.waitUntil(() => receiver.unique.size === 1, 10_000);
    assert.equal(receiver.requests.length, 2);
    assert.equal(receiver.requests[1]!.id, receiver.requests[0]!.id);
    assert.deepEqual(receiver.rejected, []);
  });
});
