// The webhook kinds of topics, contacts' topic choices and the suppression list, as a
// subscribed receiver gets them (verified with standardwebhooks and the SDK), each payload in
// the shape of the SDK's event types.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type {
  ContactTopicsUpdatedEvent,
  SuppressionAddedEvent,
  SuppressionRemovedEvent,
  TopicCreatedEvent,
  TopicDeletedEvent,
  TopicUpdatedEvent,
} from 'resend';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { FAST_RETRIES, LOOPBACK_ENDPOINTS, subscribe, WebhookReceiver } from './support.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const KINDS = ['contact.topics.updated', 'suppression.added', 'suppression.removed', 'topic.created', 'topic.updated', 'topic.deleted'];

describe('topic.*, contact.topics.updated and suppression.* webhooks', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await startTestPostline({ env: { ...FAST_RETRIES, ...LOOPBACK_ENDPOINTS } });
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, KINDS);
  });
  after(async () => {
    await t.stop();
    await receiver.stop();
  });

  const one = async <T>(type: string, count = 1): Promise<T> => {
    await receiver.waitUntil(() => receiver.payloads(type).length >= count, 15_000, type);
    assert.equal(receiver.payloads(type).length, count, type);
    return receiver.payloads(type).at(-1) as T;
  };

  it('are offered by /webhooks/event-types', async () => {
    const res = await fetch(`${t.url}/webhooks/event-types`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    const types = ((await res.json()) as { data: { type: string }[] }).data.map((e) => e.type);
    for (const kind of KINDS) assert.ok(types.includes(kind), kind);
  });

  it('signs topic.created, topic.updated and topic.deleted with the topic', async () => {
    const { data } = await t.resend.topics.create({ name: 'News', defaultSubscription: 'opt_in', description: 'Monthly' });
    const created = await one<TopicCreatedEvent>('topic.created');
    assert.equal(created.type, 'topic.created');
    assert.match(created.created_at, ISO);
    assert.deepEqual(Object.keys(created.data).sort(), ['created_at', 'default_subscription', 'deleted', 'description', 'id', 'name', 'updated_at']);
    assert.deepEqual(
      { ...created.data, created_at: undefined, updated_at: undefined },
      {
        id: data!.id,
        name: 'News',
        description: 'Monthly',
        default_subscription: 'opt_in',
        deleted: false,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    assert.match(created.data.created_at, ISO);

    await t.resend.topics.update({ id: data!.id, name: 'Newsletter', description: null } as never);
    const updated = await one<TopicUpdatedEvent>('topic.updated');
    assert.equal(updated.data.name, 'Newsletter');
    assert.equal(updated.data.description, null);
    assert.equal(updated.data.created_at, created.data.created_at);
    assert.ok(updated.data.updated_at >= created.data.updated_at);

    await t.resend.topics.remove(data!.id);
    const deleted = await one<TopicDeletedEvent>('topic.deleted');
    assert.equal(deleted.data.id, data!.id);
    assert.equal(deleted.data.deleted, true);
    // A delete of what is gone records nothing more.
    assert.equal((await t.resend.topics.remove(data!.id)).error?.statusCode, 404);
  });

  it("signs contact.topics.updated with the contact's address and the choices set", async () => {
    const topic = (await t.resend.topics.create({ name: 'Product', defaultSubscription: 'opt_out' })).data!.id;
    const contact = (await t.resend.contacts.create({ email: 'Topics@Example.org' })).data!.id;
    const { error } = await t.resend.contacts.topics.update({ id: contact, topics: [{ id: topic, subscription: 'opt_in' }] });
    assert.equal(error, null);
    const event = await one<ContactTopicsUpdatedEvent>('contact.topics.updated');
    assert.deepEqual(event.data, { email: 'topics@example.org', topics: [{ id: topic, subscription: 'opt_in' }] });
  });

  it('signs suppression.added for new entries only, and suppression.removed', async () => {
    const added = await t.resend.suppressions.add({ email: 'gone@example.org' });
    assert.equal(added.error, null);
    const id = added.data!.id;
    const event = await one<SuppressionAddedEvent>('suppression.added');
    assert.deepEqual({ ...event.data, created_at: undefined }, { id, email: 'gone@example.org', origin: 'manual', source_id: null, created_at: undefined });
    assert.match(event.data.created_at, ISO);
    await t.resend.suppressions.add({ email: 'gone@example.org' }); // already listed: no second event
    await t.resend.suppressions.batch.add({ emails: ['other@example.org'] });
    await one<SuppressionAddedEvent>('suppression.added', 2);
    assert.deepEqual(
      receiver.payloads('suppression.added').map((p) => p.data.email),
      ['gone@example.org', 'other@example.org'],
    );

    assert.equal((await t.resend.suppressions.remove(id)).error, null);
    const removed = await one<SuppressionRemovedEvent>('suppression.removed');
    assert.equal(removed.data.id, id);
    assert.equal(removed.data.email, 'gone@example.org');
    assert.equal((await t.resend.suppressions.batch.remove({ emails: ['other@example.org', 'never@example.org'] })).error, null);
    await one<SuppressionRemovedEvent>('suppression.removed', 2);
    assert.deepEqual(receiver.rejected, []);
  });
});
