import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/;

describe('/segments (and /audiences): lists of contacts', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
  });
  after(() => t.stop());

  it('creates, gets, lists, renames and removes a segment', async () => {
    const created = await t.resend.segments.create({ name: 'Newsletter' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.deepEqual(created.data, { object: 'segment', id: created.data!.id, name: 'Newsletter' });
    const id = created.data!.id;
    const got = await t.resend.segments.get(id);
    assert.deepEqual(Object.keys(got.data!).sort(), ['contacts_count', 'created_at', 'id', 'name', 'object']);
    assert.equal((got.data as unknown as { contacts_count: number }).contacts_count, 0);
    assert.equal(got.data!.object, 'segment');
    assert.match(got.data!.created_at, TIMESTAMP);

    const second = await t.resend.segments.create({ name: 'Beta' });
    const list = await t.resend.segments.list();
    assert.deepEqual(
      list.data!.data.map((s) => s.name),
      ['Beta', 'Newsletter'],
    );
    assert.deepEqual(Object.keys(list.data!.data[0]!).sort(), ['created_at', 'id', 'name']);
    const page = await t.resend.segments.list({ limit: 1, after: second.data!.id });
    assert.deepEqual(
      page.data!.data.map((s) => s.id),
      [id],
    );

    const renamed = await t.resend.segments.update(id, { name: 'Weekly' });
    assert.deepEqual(renamed.data, { object: 'segment', id });
    assert.equal((await t.resend.segments.get(id)).data!.name, 'Weekly');

    const removed = await t.resend.segments.remove(second.data!.id);
    assert.deepEqual(removed.data, { object: 'segment', id: second.data!.id, deleted: true });
    assert.deepEqual((await t.resend.segments.get(second.data!.id)).error, { statusCode: 404, message: 'Segment not found', name: 'not_found' });
  });

  it('answers the deprecated /audiences paths with object "audience"', async () => {
    const created = await rawRequest(t, 'POST', '/audiences', { body: { name: 'Old list' } });
    assert.equal(created.status, 201);
    assert.equal(created.body.object, 'audience');
    assert.equal(created.body.name, 'Old list');
    const got = await rawRequest(t, 'GET', `/audiences/${created.body.id}`);
    assert.equal(got.body.object, 'audience');
    const viaSegments = await t.resend.audiences.get(created.body.id);
    assert.equal(viaSegments.data!.name, 'Old list', 'resend.audiences is resend.segments: the same rows');
    const listed = await rawRequest(t, 'GET', '/audiences');
    assert.ok(listed.body.data.some((a: any) => a.id === created.body.id));
    const removed = await rawRequest(t, 'DELETE', `/audiences/${created.body.id}`);
    assert.deepEqual(removed.body, { object: 'audience', id: created.body.id, deleted: true });
    const gone = await rawRequest(t, 'GET', `/audiences/${created.body.id}`);
    assert.deepEqual(gone.body, { statusCode: 404, message: 'Audience not found', name: 'not_found' });
  });

  it('adds contacts on create and by path, lists both ways, removes, and keeps contacts when a segment goes', async () => {
    const a = (await t.resend.segments.create({ name: 'A' })).data!.id;
    const b = (await t.resend.segments.create({ name: 'B' })).data!.id;
    const ann = (await t.resend.contacts.create({ email: 'ann@seg.test', segments: [{ id: a }] })).data!.id;
    // The OpenAPI file's form, plain ids, works too.
    const bob = await rawRequest(t, 'POST', '/contacts', { body: { email: 'bob@seg.test', segments: [a, b] } });
    assert.equal(bob.status, 201);

    const inA = await t.resend.contacts.list({ segmentId: a });
    assert.deepEqual(
      inA.data!.data.map((c) => c.email),
      ['bob@seg.test', 'ann@seg.test'],
    );
    const inAByQuery = await rawRequest(t, 'GET', `/contacts?segment_id=${a}&limit=1`);
    assert.deepEqual(
      inAByQuery.body.data.map((c: any) => c.email),
      ['bob@seg.test'],
    );
    assert.equal(inAByQuery.body.has_more, true);
    // Postline's count of a segment's contacts.
    assert.equal((await rawRequest(t, 'GET', `/segments/${a}`)).body.contacts_count, 2);
    const inB = await t.resend.contacts.list({ segmentId: b });
    assert.deepEqual(
      inB.data!.data.map((c) => c.email),
      ['bob@seg.test'],
    );

    const added = await t.resend.contacts.segments.add({ email: 'ann@seg.test', segmentId: b });
    assert.equal(added.error, null, JSON.stringify(added.error));
    assert.deepEqual(added.data, { object: 'contact_segment', id: b, contact_id: ann, segment_id: b });
    const again = await t.resend.contacts.segments.add({ contactId: ann, segmentId: b });
    assert.equal(again.error, null, 'adding twice is idempotent');
    const annSegments = await t.resend.contacts.segments.list({ contactId: ann });
    assert.deepEqual(
      annSegments.data!.data.map((s) => s.name),
      ['B', 'A'],
    );
    assert.deepEqual(Object.keys(annSegments.data!.data[0]!).sort(), ['created_at', 'id', 'name']);

    const removed = await t.resend.contacts.segments.remove({ contactId: ann, segmentId: a });
    assert.equal(removed.error, null);
    assert.deepEqual(removed.data, { object: 'contact_segment', id: a, audienceId: a, contact_id: ann, segment_id: a, deleted: true });
    assert.deepEqual(
      (await t.resend.contacts.segments.list({ email: 'ann@seg.test' })).data!.data.map((s) => s.name),
      ['B'],
    );

    // A duplicate create joins the segments it names, and changes nothing else.
    const dup = await t.resend.contacts.create({ email: 'ann@seg.test', firstName: 'Changed', segments: [{ id: a }] });
    assert.equal(dup.data!.id, ann);
    assert.deepEqual((await t.resend.contacts.segments.list({ contactId: ann })).data!.data.map((s) => s.name).sort(), ['A', 'B']);
    assert.equal((await t.resend.contacts.get(ann)).data!.first_name, null);

    await t.resend.segments.remove(b);
    assert.equal((await t.resend.contacts.get(ann)).error, null, 'contacts outlive their segments');
    assert.equal((await t.resend.contacts.list({ segmentId: b })).error?.statusCode, 404);
  });

  it("refuses bad input and other accounts' segments", async () => {
    const cases: [string, string, unknown, number, string, RegExp][] = [
      ['POST', '/segments', {}, 422, 'missing_required_field', /Missing `name` field/],
      ['POST', '/segments', { name: 5 }, 422, 'validation_error', /must be a string/],
      ['POST', '/segments', { name: '' }, 422, 'validation_error', /must not be empty/],
      ['POST', '/segments', { name: 'x'.repeat(257) }, 422, 'validation_error', /at most 256/],
      ['POST', '/segments', { name: 'x', filter: { a: 1 } }, 422, 'validation_error', /`filter` field must be left out: .*`filter` is not supported/],
      ['POST', '/segments', { name: 'x', color: 'red' }, 422, 'validation_error', /Unknown field `color`/],
      ['GET', '/segments/not-a-uuid', undefined, 422, 'validation_error', /^The `id` must be a valid UUID\.$/],
    ];
    for (const [method, path, body, status, name, message] of cases) {
      const res = await rawRequest(t, method, path, body === undefined ? {} : { body: body as object });
      assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(res.body.name, name);
      assert.match(res.body.message, message);
    }
    const mine = (await t.resend.segments.create({ name: 'Mine' })).data!.id;
    const contact = (await t.resend.contacts.create({ email: 'mine@seg.test' })).data!.id;
    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    assert.equal((await stranger.segments.get(mine)).error?.statusCode, 404);
    assert.equal((await stranger.segments.update(mine, { name: 'theirs' })).error?.statusCode, 404);
    assert.equal((await stranger.segments.remove(mine)).error?.statusCode, 404);
    assert.equal((await stranger.contacts.list({ segmentId: mine })).error?.statusCode, 404);
    assert.deepEqual((await stranger.segments.list()).data!.data, []);
    const theirContact = (await stranger.contacts.create({ email: 'theirs@seg.test' })).data!.id;
    const cross = await stranger.contacts.segments.add({ contactId: theirContact, segmentId: mine });
    assert.deepEqual(cross.error, { statusCode: 404, message: 'Segment not found', name: 'not_found' });
    const crossCreate = await stranger.contacts.create({ email: 'new@seg.test', segments: [{ id: mine }] });
    assert.equal(crossCreate.error?.statusCode, 404);
    assert.equal((await stranger.contacts.segments.add({ contactId: contact, segmentId: mine })).error?.statusCode, 404);
    assert.equal((await t.resend.contacts.list({ segmentId: mine })).data!.data.length, 0);
  });
});
