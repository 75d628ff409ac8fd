// GET /broadcasts/:id/recipients-count: how many contacts of the segment a broadcast goes to,
// and how many are left out as unsubscribed, not subscribed to its topic, or suppressed; the
// figures agree with what the fan-out then makes (GET /broadcasts/:id/stats).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest, type TestPostline } from '../support/postline.js';
import { createContacts, createSegment, FROM, startBroadcastTest, waitForStatus } from './support.js';

describe('broadcast recipients count', () => {
  let t: TestPostline;
  let segmentId: string;
  let newsletter: string;
  let offers: string;
  before(async () => {
    t = await startBroadcastTest();
    newsletter = (await t.resend.topics.create({ name: 'Newsletter', defaultSubscription: 'opt_in' })).data!.id;
    offers = (await t.resend.topics.create({ name: 'Offers', defaultSubscription: 'opt_out' })).data!.id;
    assert.equal((await rawRequest(t, 'POST', '/suppressions', { body: { email: 'Blocked@example.org' } })).status, 201);
    segmentId = await createSegment(t);
    await createContacts(t, segmentId, [
      { email: 'ann@example.org', topics: [{ id: offers, subscription: 'opt_in' }] },
      { email: 'bob@example.org' },
      { email: 'carol@example.org', unsubscribed: true },
      { email: 'dave@example.org', unsubscribed: true, topics: [{ id: offers, subscription: 'opt_in' }] },
      { email: 'blocked@example.org' },
      { email: 'eve@example.org', topics: [{ id: newsletter, subscription: 'opt_out' }] },
    ]);
    // Not in the segment: not counted.
    assert.equal((await t.resend.contacts.create({ email: 'outside@example.org' })).error, null);
  });
  after(() => t.stop());

  const count = async (id: string) => {
    const res = await rawRequest(t, 'GET', `/broadcasts/${id}/recipients-count`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const draft = async (topicId?: string) => {
    const { data, error } = await t.resend.broadcasts.create({ segmentId, topicId, from: FROM, subject: 'Hello', html: '<p>Hi</p>' } as any);
    assert.equal(error, null, JSON.stringify(error));
    return data!.id;
  };

  it('leaves out the unsubscribed and the suppressed', async () => {
    const id = await draft();
    assert.deepEqual(await count(id), {
      object: 'broadcast_recipients',
      id,
      segment_contacts: 6,
      unsubscribed: 2,
      not_subscribed_to_topic: 0,
      suppressed: 1,
      recipients: 3,
    });
  });

  it("with a topic, also those not subscribed to it: their choice, else the topic's default", async () => {
    const optIn = await count(await draft(newsletter));
    assert.deepEqual([optIn.unsubscribed, optIn.not_subscribed_to_topic, optIn.suppressed, optIn.recipients], [2, 1, 1, 2]);
    const optOut = await count(await draft(offers));
    assert.deepEqual([optOut.unsubscribed, optOut.not_subscribed_to_topic, optOut.suppressed, optOut.recipients], [2, 3, 0, 1]);
  });

  it('agrees with what the fan-out sends', async () => {
    const id = await draft(newsletter);
    const before = await count(id);
    assert.equal((await rawRequest(t, 'POST', `/broadcasts/${id}/send`, { body: {} })).status, 200);
    await waitForStatus(t, id, 'sent');
    const stats = (await rawRequest(t, 'GET', `/broadcasts/${id}/stats`)).body;
    assert.equal(stats.recipients, before.recipients + before.suppressed);
    assert.equal(stats.suppressed, before.suppressed);
  });

  it('is not found for an unknown broadcast', async () => {
    const res = await rawRequest(t, 'GET', '/broadcasts/00000000-0000-4000-8000-000000000000/recipients-count');
    assert.equal(res.status, 404);
  });
});
