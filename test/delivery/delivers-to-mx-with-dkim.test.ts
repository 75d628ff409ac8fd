import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventually, eventsOf, FROM, publishMx, send, SENDER_DOMAIN, startDeliveryTest, verifyDkim, waitForLastEvent } from './support.js';
import { storedMessage } from '../support/stored-message.js';

describe('delivery: to the MX host, DKIM-signed', () => {
  let t: TestPostline;
  before(async () => {
    t = await startDeliveryTest();
    publishMx(t, 'example.net', [{ name: 'mx.example.net', priority: 10, address: '127.0.0.1' }]);
    publishMx(t, 'example.org', [{ name: 'mx.example.org', priority: 10, address: '127.0.0.1' }]);
  });
  after(() => t.stop());

  it('delivers the stored message unchanged, with a DKIM signature that verifies', async () => {
    const before = t.sink.messages.length;
    const id = await send(t, { to: 'alice@example.net', subject: 'Welcome', html: '<p>Welcome <b>Alice</b></p>' });
    await t.sink.waitFor(before + 1);
    const message = t.sink.messages[before]!;
    assert.deepEqual(message.to, ['alice@example.net']);
    const [stored] = await t.sql(`SELECT envelope_from FROM emails WHERE id = $1`, [id]);
    assert.equal(message.from, stored.envelope_from, 'MAIL FROM is the envelope sender the accept pipeline chose');
    assert.ok(message.raw.equals(await storedMessage(t, id)), 'the bytes on the wire are the stored message');
    assert.deepEqual(await verifyDkim(t, message.raw), [{ result: 'pass', domain: SENDER_DOMAIN }]);

    await waitForLastEvent(t, id, 'delivered');
    const events = await eventsOf(t, id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['email.sent', 'email.delivered'],
    );
    const delivered = events[1]!.data;
    assert.equal(delivered.email_id, id);
    assert.equal(delivered.from, FROM);
    assert.deepEqual(delivered.to, ['alice@example.net']);
    assert.equal(delivered.subject, 'Welcome');
    assert.match(delivered.message_id, /^<.+@.+>$/);
    const [row] = await deliveriesOf(t, id);
    assert.equal(row.status, 'delivered');
    assert.equal(row.attempts, 1);
    assert.match(row.last_response, /^250/);
  });

  it('sends one transaction per recipient domain, with every recipient of that domain in it', async () => {
    const before = t.sink.messages.length;
    const id = await send(t, {
      to: ['a@example.net', 'b@example.net'],
      cc: 'c@example.org',
      bcc: ['d@example.net'],
      tags: [{ name: 'campaign', value: 'welcome' }],
    });
    await t.sink.waitFor(before + 2);
    await eventually(async () => (await deliveriesOf(t, id)).every((d) => d.status === 'delivered'));
    const received = t.sink.messages.slice(before).map((m) => m.to.slice().sort());
    received.sort((a, b) => a.length - b.length);
    assert.deepEqual(received, [['c@example.org'], ['a@example.net', 'b@example.net', 'd@example.net']]);
    assert.ok(!t.sink.messages[before]!.raw.toString().match(/^bcc:/im), 'Bcc is not in the message');
    const delivered = (await eventsOf(t, id)).filter((e) => e.type === 'email.delivered');
    assert.deepEqual(delivered.flatMap((e) => e.data.to).sort(), ['a@example.net', 'b@example.net', 'c@example.org', 'd@example.net']);
    assert.deepEqual(delivered[0]!.data.tags, { campaign: 'welcome' });
    assert.equal(delivered[0]!.data.subject, 'Hello');
  });

  it('keeps the connection open a few seconds and reuses it for the next message to that host', async () => {
    const before = t.sink.messages.length;
    const connectionsBefore = t.sink.connections;
    for (let i = 0; i < 4; i++) {
      const id = await send(t, { to: `user${i}@example.org`, subject: `Message ${i}` });
      await waitForLastEvent(t, id, 'delivered');
    }
    assert.equal(t.sink.messages.length, before + 4);
    assert.ok(t.sink.connections - connectionsBefore <= 1, `opened ${t.sink.connections - connectionsBefore} connections for 4 messages`);
  });
});
