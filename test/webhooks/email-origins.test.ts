// Outbound email webhooks name where an email came from, as Resend's do: `template_id` for an
// email rendered from a template, `broadcast_id` for a broadcast's, neither for a plain send.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { FROM, publishMx, send, startWebhookTest, subscribe, WebhookReceiver } from './support.js';

describe('webhooks: template_id and broadcast_id in email events', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await startWebhookTest();
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, ['email.sent', 'email.delivered']);
    publishMx(t, 'inbox.test');
  });
  after(async () => {
    await t.stop();
    await receiver.stop();
  });

  const eventsOf = async (emailId: string) => {
    await receiver.waitUntil(() => [...receiver.unique.values()].filter((w) => w.payload.data.email_id === emailId).length >= 2);
    return [...receiver.unique.values()].filter((w) => w.payload.data.email_id === emailId).map((w) => w.payload);
  };

  it('carries the template of a templated email, and nothing for a plain one', async () => {
    const template = await t.resend.templates.create({
      name: 'Receipt',
      html: '<p>Order {{{ORDER}}}</p>',
      subject: 'Your order',
      variables: [{ key: 'ORDER', type: 'string' }],
    } as any);
    assert.equal(template.error, null, JSON.stringify(template.error));
    await t.resend.templates.publish(template.data!.id);
    const templated = await t.resend.emails.send({
      from: FROM,
      to: 'buyer@inbox.test',
      template: { id: template.data!.id, variables: { ORDER: '42' } },
    } as any);
    assert.equal(templated.error, null, JSON.stringify(templated.error));
    const plain = await send(t, { to: 'plain@inbox.test' });

    const templatedEvents = await eventsOf(templated.data!.id);
    assert.deepEqual(templatedEvents.map((e) => e.type).sort(), ['email.delivered', 'email.sent']);
    for (const event of templatedEvents) {
      assert.equal(event.data.template_id, template.data!.id);
      assert.equal('broadcast_id' in event.data, false);
    }
    for (const event of await eventsOf(plain)) {
      assert.equal('template_id' in event.data, false);
      assert.equal('broadcast_id' in event.data, false);
    }
  });

  it("carries the broadcast of a broadcast's email", async () => {
    const segment = await t.resend.segments.create({ name: 'Readers' });
    await t.resend.contacts.create({ email: 'reader@inbox.test', segments: [{ id: segment.data!.id }] } as any);
    const broadcast = await t.resend.broadcasts.create({
      segmentId: segment.data!.id,
      from: FROM,
      subject: 'News',
      html: '<p>Hello {{{FIRST_NAME|there}}}</p>',
      send: true,
    } as any);
    assert.equal(broadcast.error, null, JSON.stringify(broadcast.error));
    await receiver.waitUntil(() =>
      [...receiver.unique.values()].some((w) => w.payload.data.broadcast_id === broadcast.data!.id && w.payload.type === 'email.delivered'),
    );
    const events = [...receiver.unique.values()].filter((w) => w.payload.data.broadcast_id === broadcast.data!.id).map((w) => w.payload);
    assert.deepEqual(events.map((e) => e.type).sort(), ['email.delivered', 'email.sent']);
    assert.deepEqual(
      events.map((e) => e.data.to),
      [['reader@inbox.test'], ['reader@inbox.test']],
    );
  });
});
