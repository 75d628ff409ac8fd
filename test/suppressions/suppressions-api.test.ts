import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/;

describe('/suppressions: add, list, get, remove, batch', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
  });
  after(() => t.stop());

  it('adds an address (201 {object, id}), lower-cased, once', async () => {
    const added = await t.resend.suppressions.add({ email: 'Steve.Wozniak@Example.com' });
    assert.equal(added.error, null, JSON.stringify(added.error));
    assert.equal(added.data!.object, 'suppression');
    assert.match(added.data!.id, UUID);
    const raw = await rawRequest(t, 'POST', '/suppressions', { body: { email: 'steve.wozniak@example.com' } });
    assert.equal(raw.status, 201);
    assert.deepEqual(raw.body, { object: 'suppression', id: added.data!.id }, 'adding it again answers the same entry');

    const got = await t.resend.suppressions.get(added.data!.id);
    assert.deepEqual(Object.keys(got.data!).sort(), ['created_at', 'email', 'id', 'object', 'origin', 'source_id']);
    assert.equal(got.data!.email, 'steve.wozniak@example.com');
    assert.equal(got.data!.origin, 'manual');
    assert.equal(got.data!.source_id, null);
    assert.match(got.data!.created_at, TIMESTAMP);
    // By address too, in any case; the SDK url-encodes it, a raw request may not.
    const byEmail = await t.resend.suppressions.get('STEVE.wozniak@example.com');
    assert.equal(byEmail.data!.id, added.data!.id);
    const unencoded = await rawRequest(t, 'GET', '/suppressions/steve.wozniak@example.com');
    assert.equal(unencoded.body.id, added.data!.id);
  });

  it('refuses what is not one bare address', async () => {
    const cases: [unknown, number, string, RegExp][] = [
      [{}, 422, 'missing_required_field', /Missing `email` field/],
      [{ email: 'not-an-address' }, 422, 'validation_error', /`email` field/],
      [{ email: 'Steve <steve@example.com>' }, 422, 'validation_error', /bare email address/],
      [{ email: 42 }, 422, 'validation_error', /must be a string/],
      [{ email: 'a@example.com', origin: 'bounce' }, 422, 'validation_error', /Unknown field `origin`/],
    ];
    for (const [body, status, name, message] of cases) {
      const res = await rawRequest(t, 'POST', '/suppressions', { body: body as object });
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(res.body.name, name);
      assert.match(res.body.message, message);
    }
  });

  it('adds and removes up to 100 at once, answering in request order', async () => {
    const emails = ['b1@example.com', 'B2@example.com', 'b1@example.com', 'steve.wozniak@example.com'];
    const added = await t.resend.suppressions.batch.add({ emails });
    assert.equal(added.error, null, JSON.stringify(added.error));
    const ids = added.data!.data.map((d) => d.id);
    assert.equal(ids.length, 4);
    assert.equal(ids[0], ids[2], 'a repeated address is one entry');
    const steve = await t.resend.suppressions.get('steve.wozniak@example.com');
    assert.equal(ids[3], steve.data!.id, 'an address already listed keeps its entry');
    assert.deepEqual(added.data!.data[0], { object: 'suppression', id: ids[0] });
    const raw = await rawRequest(t, 'POST', '/suppressions/batch/add', { body: { emails: ['b3@example.com'] } });
    assert.equal(raw.status, 201);

    const tooMany = await rawRequest(t, 'POST', '/suppressions/batch/add', {
      body: { emails: Array.from({ length: 101 }, (_, i) => `x${i}@example.com`) },
    });
    assert.equal(tooMany.status, 422);
    const oneBad = await rawRequest(t, 'POST', '/suppressions/batch/add', { body: { emails: ['ok@example.com', 'nope'] } });
    assert.equal(oneBad.status, 422);
    assert.match(oneBad.body.message, /`emails\[1\]`/);
    assert.equal((await t.resend.suppressions.get('ok@example.com')).error?.statusCode, 404, 'nothing of a refused batch is added');
    const empty = await rawRequest(t, 'POST', '/suppressions/batch/add', { body: { emails: [] } });
    assert.equal(empty.status, 422);

    const byEmail = await t.resend.suppressions.batch.remove({ emails: ['b2@example.com', 'never@example.com'] });
    assert.equal(byEmail.error, null, JSON.stringify(byEmail.error));
    assert.deepEqual(byEmail.data!.data, [
      { object: 'suppression', id: ids[1], deleted: true },
      { object: 'suppression', id: 'never@example.com', deleted: false },
    ]);
    const unknownId = crypto.randomUUID();
    const byId = await t.resend.suppressions.batch.remove({ ids: [ids[0]!, unknownId] });
    assert.deepEqual(byId.data!.data, [
      { object: 'suppression', id: ids[0], deleted: true },
      { object: 'suppression', id: unknownId, deleted: false },
    ]);
    const both = await rawRequest(t, 'POST', '/suppressions/batch/remove', { body: { emails: ['a@example.com'], ids: [unknownId] } });
    assert.equal(both.status, 422);
    assert.equal(both.body.message, 'Provide either `emails` or `ids`, but not both.');
    const neither = await rawRequest(t, 'POST', '/suppressions/batch/remove', { body: {} });
    assert.equal(neither.status, 422);
    const badId = await rawRequest(t, 'POST', '/suppressions/batch/remove', { body: { ids: ['nope'] } });
    assert.equal(badId.status, 422);
    assert.equal(badId.body.name, 'validation_error');
    assert.equal(badId.body.message, 'The `ids[0]` field must be an id, not "nope".');
  });

  it('lists newest first, paginated, filtered by origin', async () => {
    const all = await t.resend.suppressions.list();
    assert.equal(all.error, null);
    assert.equal(all.data!.object, 'list');
    const emails = all.data!.data.map((s) => s.email);
    assert.deepEqual(emails, ['b3@example.com', 'steve.wozniak@example.com']);
    assert.deepEqual(Object.keys(all.data!.data[0]!).sort(), ['created_at', 'email', 'id', 'origin', 'source_id']);
    const first = await t.resend.suppressions.list({ limit: 1 });
    assert.equal(first.data!.has_more, true);
    const second = await t.resend.suppressions.list({ limit: 1, after: first.data!.data[0]!.id });
    assert.deepEqual(
      second.data!.data.map((s) => s.email),
      ['steve.wozniak@example.com'],
    );
    assert.equal(second.data!.has_more, false);
    const manual = await t.resend.suppressions.list({ origin: 'manual' });
    assert.equal(manual.data!.data.length, 2);
    const bounces = await t.resend.suppressions.list({ origin: 'bounce' });
    assert.deepEqual(bounces.data!.data, []);
    const badOrigin = await rawRequest(t, 'GET', '/suppressions?origin=spam');
    assert.equal(badOrigin.status, 422);
    assert.equal(badOrigin.body.name, 'invalid_parameter');
  });

  it('looks one address up with ?email=, in any case: an empty list when it is not suppressed', async () => {
    const found = await rawRequest(t, 'GET', `/suppressions?email=${encodeURIComponent('Steve.Wozniak@example.com')}`);
    assert.equal(found.status, 200);
    assert.deepEqual(
      found.body.data.map((s: { email: string }) => s.email),
      ['steve.wozniak@example.com'],
    );
    const missing = await rawRequest(t, 'GET', '/suppressions?email=nobody%40example.com');
    assert.equal(missing.status, 200);
    assert.deepEqual(missing.body, { object: 'list', has_more: false, data: [] });
    const otherOrigin = await rawRequest(t, 'GET', '/suppressions?email=b3%40example.com&origin=bounce');
    assert.deepEqual(otherOrigin.body.data, []);
  });

  it('removes one by id or address; an entry not there is not found', async () => {
    const removed = await t.resend.suppressions.remove('B3@example.com');
    assert.equal(removed.error, null);
    assert.equal(removed.data!.object, 'suppression');
    assert.equal(removed.data!.deleted, true);
    assert.match(removed.data!.id, UUID);
    const again = await t.resend.suppressions.remove('b3@example.com');
    assert.deepEqual(again.error, { statusCode: 404, message: 'Suppression not found', name: 'not_found' });
    const steve = await t.resend.suppressions.get('steve.wozniak@example.com');
    const byId = await t.resend.suppressions.remove(steve.data!.id);
    assert.deepEqual(byId.data, { object: 'suppression', id: steve.data!.id, deleted: true });
    assert.equal((await t.resend.suppressions.get('nonsense')).error?.statusCode, 404);
  });

  it("keeps each account's list to itself", async () => {
    const mine = await t.resend.suppressions.add({ email: 'private@example.com' });
    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    assert.equal((await stranger.suppressions.get(mine.data!.id)).error?.statusCode, 404);
    assert.equal((await stranger.suppressions.get('private@example.com')).error?.statusCode, 404);
    assert.equal((await stranger.suppressions.remove(mine.data!.id)).error?.statusCode, 404);
    assert.deepEqual((await stranger.suppressions.list()).data!.data, []);
    const theirs = await stranger.suppressions.add({ email: 'private@example.com' });
    assert.notEqual(theirs.data!.id, mine.data!.id);
    const removeOther = await stranger.suppressions.batch.remove({ ids: [mine.data!.id] });
    assert.equal(removeOther.data!.data[0]!.deleted, false);
    assert.equal((await t.resend.suppressions.get(mine.data!.id)).data!.id, mine.data!.id);
  });

  it('needs a full-access key', async () => {
    const key = await t.resend.apiKeys.create({ name: 'sender', permission: 'sending_access' });
    const sender = new Resend(key.data!.token, { baseUrl: t.url });
    assert.equal((await sender.suppressions.list()).error?.name, 'restricted_api_key');
    assert.equal((await rawRequest(t, 'GET', '/suppressions', { auth: null })).status, 401);
  });
});
