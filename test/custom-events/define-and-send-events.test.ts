// Custom events (resend-compat-notes §2.11): named definitions with a flat payload schema,
// reached by id or by name, and POST /events/send naming its contact by id or address.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/;

describe('custom events', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
  });
  after(() => t.stop());

  const inbox = async () => (await t.sql('SELECT name, payload FROM received_events ORDER BY id')).map((r) => [r.name, r.payload]);

  it('defines an event, reads it by id and by name, lists, updates its schema and removes it', async () => {
    const created = await t.resend.events.create({ name: 'order.paid', schema: { amount: 'number', plan: 'string' } });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.deepEqual(Object.keys(created.data!).sort(), ['id', 'object']);
    const id = created.data!.id;

    const byName = await t.resend.events.get('order.paid');
    assert.equal(byName.error, null);
    assert.deepEqual(
      { ...byName.data!, created_at: 'x' },
      {
        object: 'event',
        id,
        name: 'order.paid',
        schema: { amount: 'number', plan: 'string' },
        created_at: 'x',
        updated_at: null,
      },
    );
    assert.match(byName.data!.created_at, TIMESTAMP);
    assert.equal((await t.resend.events.get(id)).data!.name, 'order.paid');

    const other = await t.resend.events.create({ name: 'weird name/with slash' });
    assert.equal(other.error, null);
    assert.equal((await t.resend.events.get('weird name/with slash')).data!.schema, null, 'the SDK encodes the name; we decode it');

    const list = await t.resend.events.list();
    assert.deepEqual(
      list.data!.data.map((e) => e.name),
      ['weird name/with slash', 'order.paid'],
    );
    assert.deepEqual(Object.keys(list.data!.data[0]!).sort(), ['created_at', 'id', 'name', 'schema', 'updated_at']);
    assert.deepEqual((await t.resend.events.list({ limit: 1 })).data!.has_more, true);

    const updated = await t.resend.events.update('order.paid', { schema: { amount: 'number', paid_at: 'date', gift: 'boolean' } });
    assert.deepEqual(updated.data, { object: 'event', id });
    const after = (await t.resend.events.get(id)).data!;
    assert.deepEqual(after.schema, { amount: 'number', paid_at: 'date', gift: 'boolean' });
    assert.match(after.updated_at!, TIMESTAMP);
    assert.deepEqual((await t.resend.events.update(id, { schema: null })).data, { object: 'event', id });
    assert.equal((await t.resend.events.get(id)).data!.schema, null);

    const removed = await t.resend.events.remove('weird name/with slash');
    assert.deepEqual(removed.data, { object: 'event', id: other.data!.id, deleted: true });
    assert.deepEqual((await t.resend.events.get(other.data!.id)).error, { statusCode: 404, message: 'Event not found', name: 'not_found' });
    assert.equal((await t.resend.events.remove('no.such.event')).error?.statusCode, 404);
  });

  it('refuses reserved, duplicate and id-shaped names, and malformed schemas', async () => {
    const reserved = await t.resend.events.create({ name: 'resend:contact.created' });
    assert.equal(reserved.error?.statusCode, 422);
    assert.match(reserved.error!.message, /resend:/);
    await t.resend.events.create({ name: 'signup' });
    const duplicate = await t.resend.events.create({ name: 'signup' });
    assert.equal(duplicate.error?.statusCode, 422);
    assert.match(duplicate.error!.message, /already exists/);
    const idShaped = await t.resend.events.create({ name: '0b7c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d' });
    assert.equal(idShaped.error?.statusCode, 422);
    const badType = await t.resend.events.create({ name: 'x', schema: { amount: 'integer' } as any });
    assert.equal(badType.error?.statusCode, 422);
    assert.match(badType.error!.message, /schema\.amount/);
    const nested = await rawRequest(t, 'POST', '/events', { body: { name: 'y', schema: { a: { b: 'string' } } } });
    assert.equal(nested.status, 422);
    const missing = await rawRequest(t, 'POST', '/events', { body: { schema: null } });
    assert.deepEqual(missing.body, { statusCode: 422, message: 'Missing `name` field.', name: 'missing_required_field' });
    const unknown = await rawRequest(t, 'POST', '/events', { body: { name: 'z', description: 'no' } });
    assert.equal(unknown.status, 422);
    const patchWithout = await rawRequest(t, 'PATCH', '/events/signup', { body: {} });
    assert.equal(patchWithout.body.name, 'missing_required_field');
  });

  it('sends an event for a new address (creating the contact) and for a contact id: 202, queued for automations', async () => {
    const sent = await t.resend.events.send({ event: 'user.created', email: 'New.Person@Example.org', payload: { plan: 'pro' } });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    assert.deepEqual(sent.data, { object: 'event', event: 'user.created' });
    const contact = await t.resend.contacts.get({ email: 'new.person@example.org' });
    assert.equal(contact.error, null, 'the unknown address became a contact');

    const byId = await t.resend.events.send({ event: 'user.created', contactId: contact.data!.id });
    assert.equal(byId.error, null);
    const raw = await rawRequest(t, 'POST', '/events/send', { body: { event: 'ping', email: 'new.person@example.org' } });
    assert.equal(raw.status, 202);
    assert.deepEqual((await inbox()).slice(-3), [
      ['user.created', { plan: 'pro' }],
      ['user.created', {}],
      ['ping', {}],
    ]);
  });

  it('needs exactly one of contact_id and email, and a contact_id of the account', async () => {
    const before = (await inbox()).length;
    const both = await t.resend.events.send({ event: 'x', email: 'a@example.org', contactId: '0b7c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d' } as any);
    assert.equal(both.error?.statusCode, 422);
    assert.equal(both.error?.name, 'validation_error');
    const neither = await rawRequest(t, 'POST', '/events/send', { body: { event: 'x' } });
    assert.equal(neither.status, 422);
    assert.match(neither.body.message, /contact_id.*email/);
    const unknown = await t.resend.events.send({ event: 'x', contactId: '0b7c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d' });
    assert.deepEqual(unknown.error, { statusCode: 404, message: 'Contact not found', name: 'not_found' });
    const notAnId = await t.resend.events.send({ event: 'x', contactId: 'nope' });
    assert.equal(notAnId.error?.statusCode, 422);
    const badEmail = await t.resend.events.send({ event: 'x', email: 'not an address' });
    assert.equal(badEmail.error?.statusCode, 422);
    const reserved = await t.resend.events.send({ event: 'resend:email.sent', email: 'a@example.org' });
    assert.equal(reserved.error?.statusCode, 422);
    const noEvent = await rawRequest(t, 'POST', '/events/send', { body: { email: 'a@example.org' } });
    assert.deepEqual(noEvent.body, { statusCode: 422, message: 'Missing `event` field.', name: 'missing_required_field' });
    const arrayPayload = await rawRequest(t, 'POST', '/events/send', { body: { event: 'x', email: 'a@example.org', payload: [1] } });
    assert.equal(arrayPayload.status, 422);
    assert.equal((await inbox()).length, before, 'nothing was queued');
    assert.equal((await t.resend.contacts.get({ email: 'a@example.org' })).error?.statusCode, 404, 'nor any contact created');
  });

  it("keeps accounts apart: another account's events and contacts are not found", async () => {
    const mine = (await t.resend.events.create({ name: 'mine.only', schema: { n: 'number' } })).data!.id;
    const contact = (await t.resend.contacts.create({ email: 'private@example.org' })).data!.id;
    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    assert.equal((await stranger.events.get(mine)).error?.statusCode, 404);
    assert.equal((await stranger.events.get('mine.only')).error?.statusCode, 404);
    assert.equal((await stranger.events.update(mine, { schema: null })).error?.statusCode, 404);
    assert.equal((await stranger.events.remove('mine.only')).error?.statusCode, 404);
    assert.deepEqual((await stranger.events.list()).data!.data, []);
    assert.equal((await stranger.events.send({ event: 'mine.only', contactId: contact })).error?.statusCode, 404);
    const own = await stranger.events.send({ event: 'mine.only', email: 'private@example.org', payload: { n: 'not checked against my schema' } });
    assert.equal(own.error, null, 'their own contact of that address, and no schema of mine');
    assert.equal((await t.resend.events.get(mine)).data!.schema!.n, 'number');
  });

  it("checks a defined event's payload against its schema, naming the field", async () => {
    await t.resend.events.create({ name: 'invoice.paid', schema: { amount: 'number', paid_at: 'date', gift: 'boolean', note: 'string' } });
    const ok = await t.resend.events.send({
      event: 'invoice.paid',
      email: 'payer@example.org',
      payload: { amount: 12.5, paid_at: '2026-01-31T10:00:00Z', gift: false, note: 'thanks' },
    });
    assert.equal(ok.error, null, JSON.stringify(ok.error));
    const partial = await t.resend.events.send({ event: 'invoice.paid', email: 'payer@example.org', payload: { amount: 3 } });
    assert.equal(partial.error, null, 'schema fields may be left out');

    const cases: [Record<string, unknown>, RegExp][] = [
      [{ amount: '12' }, /payload\.amount.*number/],
      [{ paid_at: 'yesterday' }, /payload\.paid_at.*date/],
      [{ gift: 'yes' }, /payload\.gift.*boolean/],
      [{ note: 5 }, /payload\.note.*string/],
      [{ coupon: 'X' }, /payload\.coupon.*not in the schema/],
    ];
    for (const [payload, message] of cases) {
      const res = await t.resend.events.send({ event: 'invoice.paid', email: 'payer@example.org', payload });
      assert.equal(res.error?.statusCode, 422, JSON.stringify(payload));
      assert.equal(res.error?.name, 'validation_error');
      assert.match(res.error!.message, message);
    }
    const undefinedEvent = await t.resend.events.send({ event: 'anything.goes', email: 'payer@example.org', payload: { nested: { a: [1] } } });
    assert.equal(undefinedEvent.error, null, 'an event without a definition takes any payload');
  });
});
