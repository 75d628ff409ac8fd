import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/;

describe('/contacts: create, get by id or address, list, update, delete', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
  });
  after(() => t.stop());

  it('creates a contact (201 {object, id}) and reads it back by id and by address', async () => {
    const created = await t.resend.contacts.create({ email: 'Steve.Wozniak@Example.com', firstName: 'Steve', lastName: 'Wozniak' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.deepEqual(Object.keys(created.data!).sort(), ['id', 'object']);
    assert.equal(created.data!.object, 'contact');
    assert.match(created.data!.id, UUID);
    const raw = await rawRequest(t, 'POST', '/contacts', { body: { email: 'raw@example.com' } });
    assert.equal(raw.status, 201);

    const byId = await t.resend.contacts.get(created.data!.id);
    assert.equal(byId.error, null);
    assert.deepEqual(byId.data, {
      object: 'contact',
      id: created.data!.id,
      email: 'steve.wozniak@example.com',
      first_name: 'Steve',
      last_name: 'Wozniak',
      created_at: byId.data!.created_at,
      unsubscribed: false,
      properties: {},
    });
    assert.match(byId.data!.created_at, TIMESTAMP);
    const byEmail = await t.resend.contacts.get({ email: 'STEVE.wozniak@example.com' });
    assert.equal(byEmail.data!.id, created.data!.id, 'an address matches in any case');
    const nulls = await t.resend.contacts.get({ email: 'raw@example.com' });
    assert.equal(nulls.data!.first_name, null);
    assert.equal(nulls.data!.last_name, null);
  });

  it('passes an address with + through the path unencoded, as the SDK sends it', async () => {
    const created = await t.resend.contacts.create({ email: 'a+b@x.com' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const got = await t.resend.contacts.get({ email: 'a+b@x.com' });
    assert.equal(got.error, null, JSON.stringify(got.error));
    assert.equal(got.data!.email, 'a+b@x.com');
    const raw = await rawRequest(t, 'GET', '/contacts/a+b@x.com');
    assert.equal(raw.body.id, created.data!.id);
    const encoded = await rawRequest(t, 'GET', '/contacts/a%2Bb%40x.com');
    assert.equal(encoded.body.id, created.data!.id);

    const updated = await t.resend.contacts.update({ email: 'a+b@x.com', firstName: 'Plus' });
    assert.deepEqual(updated.data, { object: 'contact', id: created.data!.id });
    const removed = await t.resend.contacts.remove({ email: 'a+b@x.com' });
    assert.deepEqual(removed.data, { object: 'contact', contact: 'a+b@x.com', deleted: true });
    assert.equal((await t.resend.contacts.get({ email: 'a+b@x.com' })).error?.statusCode, 404);
  });

  it('answers a duplicate address with the existing contact, unchanged', async () => {
    const first = await t.resend.contacts.create({ email: 'dup@example.com', firstName: 'First' });
    const again = await t.resend.contacts.create({ email: 'DUP@example.com', firstName: 'Second', unsubscribed: true });
    assert.equal(again.error, null);
    assert.equal(again.data!.id, first.data!.id);
    const got = await t.resend.contacts.get(first.data!.id);
    assert.equal(got.data!.first_name, 'First', 'a create never overwrites');
    assert.equal(got.data!.unsubscribed, false);
    const rows = await t.sql("SELECT count(*)::int AS n FROM contacts WHERE email = 'dup@example.com'");
    assert.equal(rows[0].n, 1);
  });

  it('updates names, unsubscribe state and clears a name with null', async () => {
    const { data } = await t.resend.contacts.create({ email: 'update@example.com', firstName: 'Up', lastName: 'Date' });
    const id = data!.id;
    const res = await t.resend.contacts.update({ id, unsubscribed: true, lastName: null });
    assert.equal(res.error, null, JSON.stringify(res.error));
    assert.deepEqual(res.data, { object: 'contact', id });
    const got = await t.resend.contacts.get(id);
    assert.equal(got.data!.unsubscribed, true);
    assert.equal(got.data!.first_name, 'Up');
    assert.equal(got.data!.last_name, null);
    // Changing the address (OpenAPI allows it), but not to one another contact has.
    const moved = await rawRequest(t, 'PATCH', `/contacts/${id}`, { body: { email: 'moved@example.com' } });
    assert.equal(moved.status, 200);
    assert.equal((await t.resend.contacts.get({ email: 'moved@example.com' })).data!.id, id);
    const taken = await rawRequest(t, 'PATCH', `/contacts/${id}`, { body: { email: 'dup@example.com' } });
    assert.equal(taken.status, 422);
    assert.equal(taken.body.name, 'validation_error');
    const missing = await t.resend.contacts.update({ email: 'nobody@example.com', firstName: 'x' });
    assert.deepEqual(missing.error, { statusCode: 404, message: 'Contact not found', name: 'not_found' });
  });

  it('deletes by id, answering the path as given, then 404', async () => {
    const { data } = await t.resend.contacts.create({ email: 'gone@example.com' });
    const removed = await t.resend.contacts.remove(data!.id);
    assert.deepEqual(removed.data, { object: 'contact', contact: data!.id, deleted: true });
    assert.equal((await t.resend.contacts.get(data!.id)).error?.statusCode, 404);
    const again = await t.resend.contacts.remove(data!.id);
    assert.deepEqual(again.error, { statusCode: 404, message: 'Contact not found', name: 'not_found' });
  });

  it('lists newest first with the list fields, in pages both ways', async () => {
    const emails = ['p1@list.test', 'p2@list.test', 'p3@list.test'];
    for (const email of emails) await t.resend.contacts.create({ email });
    const all = await t.resend.contacts.list();
    assert.equal(all.error, null);
    assert.equal(all.data!.object, 'list');
    assert.equal(all.data!.has_more, false);
    const top = all.data!.data.slice(0, 3);
    assert.deepEqual(
      top.map((c) => c.email),
      ['p3@list.test', 'p2@list.test', 'p1@list.test'],
    );
    assert.deepEqual(Object.keys(top[0]!).sort(), ['created_at', 'email', 'first_name', 'id', 'last_name', 'unsubscribed']);

    const first = await t.resend.contacts.list({ limit: 2 });
    assert.deepEqual(
      first.data!.data.map((c) => c.email),
      ['p3@list.test', 'p2@list.test'],
    );
    assert.equal(first.data!.has_more, true);
    const next = await t.resend.contacts.list({ limit: 1, after: first.data!.data[1]!.id });
    assert.deepEqual(
      next.data!.data.map((c) => c.email),
      ['p1@list.test'],
    );
    const back = await t.resend.contacts.list({ limit: 1, before: next.data!.data[0]!.id });
    assert.deepEqual(
      back.data!.data.map((c) => c.email),
      ['p2@list.test'],
    );
    const badLimit = await t.resend.contacts.list({ limit: 101 });
    assert.equal(badLimit.error?.name, 'validation_error');
  });

  it('refuses malformed requests with Resend errors, writing nothing', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{}, 'missing_required_field', /^Missing `email` field\.$/],
      [{ first_name: 'No address' }, 'missing_required_field', /^Missing `email` field\.$/],
      [{ email: 'not-an-address' }, 'validation_error', /`email` field/],
      [{ email: 'a@b' }, 'validation_error', /`email` field/],
      [{ email: 'Steve <bad@example.com>' }, 'validation_error', /bare email address/],
      [{ email: 42 }, 'validation_error', /must be a string/],
      [{ email: 'bad@example.com', nickname: 'x' }, 'validation_error', /Unknown field `nickname`/],
      [{ email: 'bad@example.com', first_name: 7 }, 'validation_error', /`first_name` field must be a string/],
      [{ email: 'bad@example.com', unsubscribed: 'yes' }, 'validation_error', /`unsubscribed` field must be a boolean/],
      [{ email: 'bad@example.com', properties: [] }, 'validation_error', /`properties` field must be an object/],
      [{ email: 'bad@example.com', properties: { plan: true } }, 'validation_error', /`properties.plan`/],
      [{ email: 'bad@example.com', properties: { plan: 'pro' } }, 'validation_error', /property `plan` does not exist/],
      [{ email: 'bad@example.com', segments: 'x' }, 'validation_error', /`segments` field must be an array/],
      [
        { email: 'bad@example.com', segments: ['nope'] },
        'validation_error',
        /^The `segments\[0\]` field must be a segment id, or an object `\{"id": <segment id>\}`, not "nope"\.$/,
      ],
      [{ email: 'bad@example.com', topics: [{ id: crypto.randomUUID(), subscription: 'maybe' }] }, 'validation_error', /subscription/],
      [{ email: 'bad@example.com', first_name: 'x'.repeat(257) }, 'validation_error', /at most 256/],
    ];
    const written = async () =>
      (await t.sql(`SELECT (SELECT count(*) FROM contacts)::int AS contacts, (SELECT count(*) FROM events WHERE type LIKE 'contact.%')::int AS events`))[0];
    const before = await written();
    for (const [body, name, message] of cases) {
      const res = await rawRequest(t, 'POST', '/contacts', { body: body as object });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.name, name, JSON.stringify(body));
      assert.match(res.body.message, message);
      assert.deepEqual(Object.keys(res.body), ['statusCode', 'message', 'name']);
    }
    const sdk = await t.resend.contacts.create({ email: '' } as any);
    assert.deepEqual(sdk.error, { statusCode: 422, message: 'Missing `email` field.', name: 'missing_required_field' });
    const unknownSegment = await t.resend.contacts.create({ email: 'bad@example.com', segments: [{ id: crypto.randomUUID() }] });
    assert.deepEqual(unknownSegment.error, { statusCode: 404, message: 'Segment not found', name: 'not_found' });
    assert.deepEqual(await written(), before, 'no contact and no contact event written');

    const { data } = await t.resend.contacts.create({ email: 'patchme@example.com', lastName: 'Kept' });
    const beforePatches = { contact: (await t.resend.contacts.get(data!.id)).data, written: await written() };
    for (const body of [{ unsubscribed: 1 }, { segments: [] }, { last_name: ['x'] }, { email: 'nope' }]) {
      const res = await rawRequest(t, 'PATCH', `/contacts/${data!.id}`, { body });
      assert.equal(res.status, 422, JSON.stringify(body));
    }
    assert.deepEqual({ contact: (await t.resend.contacts.get(data!.id)).data, written: await written() }, beforePatches, 'the refused updates changed nothing');
    const notAddress = await rawRequest(t, 'GET', '/contacts/not-an-id-or-address');
    assert.equal(notAddress.status, 404);
  });

  it("never shows another account's contacts: 404 on every path, absent from its list", async () => {
    const { data } = await t.resend.contacts.create({ email: 'private@example.com' });
    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    assert.equal((await stranger.contacts.get(data!.id)).error?.statusCode, 404);
    assert.equal((await stranger.contacts.get({ email: 'private@example.com' })).error?.statusCode, 404);
    assert.equal((await stranger.contacts.update({ id: data!.id, unsubscribed: true })).error?.statusCode, 404);
    assert.equal((await stranger.contacts.remove(data!.id)).error?.statusCode, 404);
    assert.deepEqual((await stranger.contacts.list()).data!.data, []);
    assert.deepEqual((await stranger.contacts.list({ after: data!.id })).data!.data, []);
    assert.equal((await t.resend.contacts.get(data!.id)).data!.unsubscribed, false);
    // The same address is a separate contact in another account.
    const theirs = await stranger.contacts.create({ email: 'private@example.com' });
    assert.notEqual(theirs.data!.id, data!.id);
  });
});

describe('/audiences/:id/contacts: the deprecated paths, same shapes', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
  });
  after(() => t.stop());

  it('creates into the audience, reads, lists, updates and deletes through it', async () => {
    const audience = await t.resend.audiences.create({ name: 'Legacy' });
    const audienceId = audience.data!.id;
    const created = await t.resend.contacts.create({ audienceId, email: 'legacy@example.com', firstName: 'Old' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.equal(created.data!.object, 'contact');
    const got = await t.resend.contacts.get({ audienceId, email: 'legacy@example.com' });
    assert.equal(got.data!.id, created.data!.id);
    assert.equal(got.data!.first_name, 'Old');
    const listed = await t.resend.contacts.list({ audienceId });
    assert.deepEqual(
      listed.data!.data.map((c) => c.id),
      [created.data!.id],
    );
    const raw = await rawRequest(t, 'GET', `/audiences/${audienceId}/contacts`);
    assert.deepEqual(
      raw.body.data.map((c: any) => c.id),
      [created.data!.id],
    );
    const updated = await t.resend.contacts.update({ audienceId, id: created.data!.id, unsubscribed: true });
    assert.deepEqual(updated.data, { object: 'contact', id: created.data!.id });
    const removed = await t.resend.contacts.remove({ audienceId, email: 'legacy@example.com' });
    assert.deepEqual(removed.data, { object: 'contact', contact: 'legacy@example.com', deleted: true });

    const unknown = await t.resend.contacts.create({ audienceId: crypto.randomUUID(), email: 'x@example.com' });
    assert.deepEqual(unknown.error, { statusCode: 404, message: 'Audience not found', name: 'not_found' });
    const missing = await rawRequest(t, 'POST', `/audiences/${audienceId}/contacts`, { body: {} });
    assert.equal(missing.body.name, 'missing_required_field');
  });
});
