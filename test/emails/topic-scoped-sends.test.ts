// `topic_id` on POST /emails (and in batch items): the email goes only to recipients subscribed
// to the topic — a contact by its own choice, else the topic's default; an address that is no
// contact by the default alone; a contact unsubscribed from everything never. The others are
// not attempted and are reported as suppressed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { deliveriesOf, eventsOf, eventually, FROM, publishMx, send, startDeliveryTest } from '../delivery/support.js';
import { rawRequest, type TestPostline } from '../support/postline.js';

describe('emails scoped to a topic', () => {
  let t: TestPostline;
  let newsletter: string; // default opt_in
  let offers: string; // default opt_out
  before(async () => {
    t = await startDeliveryTest();
    publishMx(t, 'inbox.test', [{ name: 'mx.inbox.test', priority: 10, address: '127.0.0.1' }]);
    newsletter = (await t.resend.topics.create({ name: 'Newsletter', defaultSubscription: 'opt_in' })).data!.id;
    offers = (await t.resend.topics.create({ name: 'Offers', defaultSubscription: 'opt_out' })).data!.id;
    await t.resend.contacts.create({ email: 'out@inbox.test', topics: [{ id: newsletter, subscription: 'opt_out' }] } as any);
    await t.resend.contacts.create({ email: 'plain@inbox.test' });
    await t.resend.contacts.create({ email: 'in@inbox.test', topics: [{ id: offers, subscription: 'opt_in' }] } as any);
    await t.resend.contacts.create({ email: 'gone@inbox.test', unsubscribed: true });
  });
  after(() => t.stop());

  const statuses = async (id: string) => {
    await eventually(async () => (await deliveriesOf(t, id)).every((d) => d.status !== 'queued'));
    return Object.fromEntries((await deliveriesOf(t, id)).map((d) => [d.recipient, d.status]));
  };

  it('sends a default-opt-in topic to everyone but those who opted out or unsubscribed', async () => {
    const id = await send(t, {
      to: ['out@inbox.test', 'plain@inbox.test', 'stranger@inbox.test', 'gone@inbox.test'],
      topicId: newsletter,
    });
    assert.deepEqual(await statuses(id), {
      'gone@inbox.test': 'suppressed',
      'out@inbox.test': 'suppressed',
      'plain@inbox.test': 'delivered',
      'stranger@inbox.test': 'delivered',
    });
    const suppressed = (await eventsOf(t, id)).filter((e) => e.type === 'email.suppressed');
    assert.equal(suppressed.length, 1);
    assert.deepEqual(suppressed[0]!.data.to.sort(), ['gone@inbox.test', 'out@inbox.test']);
    assert.equal(suppressed[0]!.data.suppressed.reason, 'unsubscribed');
  });

  it('sends a default-opt-out topic only to those who opted in, in batches too', async () => {
    const { data, error } = await t.resend.batch.send([
      { from: FROM, to: ['in@inbox.test', 'plain@inbox.test'], subject: 'Offer', html: '<p>50% off</p>', topicId: offers },
      { from: FROM, to: 'stranger@inbox.test', subject: 'Offer', html: '<p>50% off</p>', topicId: offers },
    ] as any);
    assert.equal(error, null, JSON.stringify(error));
    const [first, second] = data!.data;
    assert.deepEqual(await statuses(first!.id), { 'in@inbox.test': 'delivered', 'plain@inbox.test': 'suppressed' });
    assert.deepEqual(await statuses(second!.id), { 'stranger@inbox.test': 'suppressed' });
    const { data: email } = await t.resend.emails.get(second!.id);
    assert.equal(email!.last_event, 'suppressed', 'nobody left to send to');
    assert.equal((email as any).topic_id, offers);
  });

  it("refuses a topic that is not the account's, and a malformed one", async () => {
    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    const theirs = (await stranger.topics.create({ name: 'Theirs', defaultSubscription: 'opt_in' })).data!.id;
    for (const topic of [theirs, crypto.randomUUID()]) {
      const res = await rawRequest(t, 'POST', '/emails', { body: { from: FROM, to: 'plain@inbox.test', subject: 'x', html: '<p>x</p>', topic_id: topic } });
      assert.deepEqual([res.status, res.body.name, res.body.message], [404, 'not_found', 'Topic not found']);
    }
    for (const topic of ['news', 42, '']) {
      const res = await rawRequest(t, 'POST', '/emails', { body: { from: FROM, to: 'plain@inbox.test', subject: 'x', html: '<p>x</p>', topic_id: topic } });
      assert.equal(res.status, 422, JSON.stringify(topic));
    }
    const permissive = await rawRequest(t, 'POST', '/emails/batch', {
      headers: { 'x-batch-validation': 'permissive' },
      body: [
        { from: FROM, to: 'plain@inbox.test', subject: 'ok', html: '<p>ok</p>', topic_id: newsletter },
        { from: FROM, to: 'plain@inbox.test', subject: 'no', html: '<p>no</p>', topic_id: theirs },
      ],
    });
    assert.equal(permissive.status, 200, JSON.stringify(permissive.body));
    assert.equal(permissive.body.data.length, 1);
    assert.deepEqual(
      permissive.body.errors.map((e: any) => [e.index, e.message]),
      [[1, 'Topic not found']],
    );
  });

  it('leaves emails without a topic alone, contacts and their choices notwithstanding', async () => {
    const id = await send(t, { to: ['out@inbox.test', 'gone@inbox.test'] });
    assert.deepEqual(await statuses(id), { 'gone@inbox.test': 'delivered', 'out@inbox.test': 'delivered' });
  });
});
