import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { FAST_RETRIES, LOOPBACK_ENDPOINTS, subscribe, WebhookReceiver } from '../webhooks/support.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('contact.* webhooks: created, updated (an unsubscribe included), deleted', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await startTestPostline({ env: { ...FAST_RETRIES, ...LOOPBACK_ENDPOINTS } });
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, ['contact.created', 'contact.updated', 'contact.deleted']);
  });
  after(async () => {
    await t.stop();
    await receiver.stop();
  });

  it('signs one event per change, with Resend’s contact payload', async () => {
    const segment = (await t.resend.segments.create({ name: 'Hooks' })).data!.id;
    const topic = (await t.resend.topics.create({ name: 'News', defaultSubscription: 'opt_in' })).data!.id;
    const created = await t.resend.contacts.create({ email: 'Hook@Example.com', firstName: 'Hook', segments: [{ id: segment }] });
    const id = created.data!.id;
    await receiver.waitUntil(() => receiver.payloads('contact.created').length === 1, 15_000, 'contact.created');
    const [createdEvent] = receiver.payloads('contact.created');
    assert.deepEqual(Object.keys(createdEvent).sort(), ['created_at', 'data', 'type']);
    assert.match(createdEvent.created_at, ISO);
    assert.deepEqual(Object.keys(createdEvent.data).sort(), [
      'audience_id',
      'created_at',
      'email',
      'first_name',
      'id',
      'last_name',
      'segment_ids',
      'unsubscribed',
      'updated_at',
    ]);
    assert.equal(createdEvent.data.id, id);
    assert.equal(createdEvent.data.email, 'hook@example.com');
    assert.equal(createdEvent.data.first_name, 'Hook');
    assert.equal(createdEvent.data.last_name, null);
    assert.equal(createdEvent.data.unsubscribed, false);
    assert.deepEqual(createdEvent.data.segment_ids, [segment]);
    assert.equal(createdEvent.data.audience_id, segment);
    assert.match(createdEvent.data.created_at, ISO);
    assert.match(createdEvent.data.updated_at, ISO);

    // Changes that are not changes (a duplicate create, a PATCH of the same values, a refused
    // request) record nothing.
    await t.resend.contacts.create({ email: 'hook@example.com', firstName: 'Other' });
    await t.resend.contacts.update({ id, firstName: 'Hook' });
    await rawRequest(t, 'PATCH', `/contacts/${id}`, { body: { unsubscribed: 'yes' } });
    await rawRequest(t, 'POST', '/contacts', { body: { email: 'refused@example.com', nickname: 'x' } });

    await t.resend.contacts.update({ email: 'hook@example.com', unsubscribed: true });
    await receiver.waitUntil(() => receiver.payloads('contact.updated').length === 1, 15_000, 'the unsubscribe');
    const [unsubscribed] = receiver.payloads('contact.updated');
    assert.equal(unsubscribed.data.id, id);
    assert.equal(unsubscribed.data.unsubscribed, true);
    assert.ok(unsubscribed.data.updated_at >= createdEvent.data.updated_at);

    await t.resend.contacts.segments.remove({ contactId: id, segmentId: segment });
    await t.resend.contacts.topics.update({ id, topics: [{ id: topic, subscription: 'opt_out' }] });
    await receiver.waitUntil(() => receiver.payloads('contact.updated').length === 3, 15_000, 'segment and topic changes');
    const segmentIds = receiver.payloads('contact.updated').map((p) => p.data.segment_ids);
    assert.deepEqual(segmentIds.slice(1), [[], []]);

    await t.resend.contacts.remove(id);
    await receiver.waitUntil(() => receiver.payloads('contact.deleted').length === 1, 15_000, 'contact.deleted');
    const [deleted] = receiver.payloads('contact.deleted');
    assert.equal(deleted.data.id, id);
    assert.equal(deleted.data.email, 'hook@example.com');

    // Nothing else was recorded: the outbox holds exactly these five, each delivered once, and
    // the topic choice's own contact.topics.updated (not subscribed here).
    const recorded = await t.sql("SELECT type FROM events WHERE type LIKE 'contact.%' ORDER BY id");
    assert.deepEqual(
      recorded.map((r) => r.type),
      ['contact.created', 'contact.updated', 'contact.updated', 'contact.topics.updated', 'contact.updated', 'contact.deleted'],
    );
    assert.equal(receiver.unique.size, 5);
    assert.deepEqual(receiver.rejected, []);
  });
});
