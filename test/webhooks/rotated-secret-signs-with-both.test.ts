import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { TestPostline } from '../support/postline.js';
import { send, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

describe('webhooks: after a secret rotation both secrets verify for a day', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await startWebhookTest();
    receiver = await new WebhookReceiver(t.resend).start();
  });
  after(async () => {
    await t.stop();
    await receiver.stop();
  });

  it('signs with the new secret and the previous one', async () => {
    const webhookId = await subscribe(t, receiver, ['email.sent']);
    const previous = receiver.secret;
    const { data } = await t.resend.webhooks.rotateSigningSecret(webhookId);
    receiver.secret = data!.signing_secret;
    await send(t, { to: 'delivered@resend.dev' });
    await receiver.waitUntil(() => receiver.unique.size === 1);
    assert.deepEqual(receiver.rejected, []);
    const webhook = receiver.requests[0]!;
    const signatures = webhook.signature.split(' ');
    assert.equal(signatures.length, 2);
    const headers = { 'webhook-id': webhook.id, 'webhook-timestamp': webhook.timestamp, 'webhook-signature': webhook.signature };
    assert.doesNotThrow(() => new Webhook(previous).verify(webhook.body, headers), 'a receiver still on the old secret');
    assert.doesNotThrow(() => new Webhook(data!.signing_secret).verify(webhook.body, headers));
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(webhook.body, headers));
  });
});
