import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/;

describe('/contact-properties: typed properties contacts carry', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
  });
  after(() => t.stop());

  it('creates, gets, lists, updates the fallback and removes a property', async () => {
    const created = await t.resend.contactProperties.create({ key: 'company_name', type: 'string', fallbackValue: 'Acme' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.deepEqual(Object.keys(created.data!).sort(), ['id', 'object']);
    assert.equal(created.data!.object, 'contact_property');
    const id = created.data!.id;
    const got = await t.resend.contactProperties.get(id);
    assert.equal(got.error, null);
    assert.deepEqual(
      { ...got.data!, createdAt: undefined },
      { object: 'contact_property', id, key: 'company_name', type: 'string', fallbackValue: 'Acme', createdAt: undefined },
    );
    assert.match(got.data!.createdAt, TIMESTAMP);
    const raw = await rawRequest(t, 'GET', `/contact-properties/${id}`);
    assert.deepEqual(Object.keys(raw.body).sort(), ['created_at', 'fallback_value', 'id', 'key', 'object', 'type']);

    const age = await t.resend.contactProperties.create({ key: 'age', type: 'number' });
    const list = await t.resend.contactProperties.list();
    assert.deepEqual(
      list.data!.data.map((p) => [p.key, p.type, p.fallbackValue]),
      [
        ['age', 'number', null],
        ['company_name', 'string', 'Acme'],
      ],
    );

    const updated = await t.resend.contactProperties.update({ id: age.data!.id, fallbackValue: 30 });
    assert.deepEqual(updated.data, { object: 'contact_property', id: age.data!.id });
    assert.equal((await t.resend.contactProperties.get(age.data!.id)).data!.fallbackValue, 30);
    await t.resend.contactProperties.update({ id: age.data!.id, fallbackValue: null });
    assert.equal((await t.resend.contactProperties.get(age.data!.id)).data!.fallbackValue, null);

    const removed = await t.resend.contactProperties.remove(age.data!.id);
    assert.deepEqual(removed.data, { object: 'contact_property', id: age.data!.id, deleted: true });
    assert.equal((await t.resend.contactProperties.get(age.data!.id)).error?.statusCode, 404);
  });

  it('refuses bad keys, types, fallbacks and changes to key or type', async () => {
    const cases: [string, string, unknown, string, RegExp][] = [
      ['POST', '/contact-properties', { type: 'string' }, 'missing_required_field', /Missing `key` field/],
      ['POST', '/contact-properties', { key: 'plan' }, 'missing_required_field', /Missing `type` field/],
      ['POST', '/contact-properties', { key: 'x'.repeat(51), type: 'string' }, 'validation_error', /1 to 50 characters/],
      ['POST', '/contact-properties', { key: 'has-dash', type: 'string' }, 'validation_error', /letters, digits and underscores/],
      ['POST', '/contact-properties', { key: '', type: 'string' }, 'validation_error', /1 to 50/],
      ['POST', '/contact-properties', { key: 'first_name', type: 'string' }, 'validation_error', /reserved/],
      ['POST', '/contact-properties', { key: 'plan', type: 'boolean' }, 'validation_error', /`type` field must be one of/],
      ['POST', '/contact-properties', { key: 'plan', type: 'number', fallback_value: 'ten' }, 'validation_error', /must be a number/],
      ['POST', '/contact-properties', { key: 'plan', type: 'string', fallback_value: 10 }, 'validation_error', /must be a string/],
      ['POST', '/contact-properties', { key: 'plan', type: 'string', label: 'x' }, 'validation_error', /Unknown field `label`/],
      ['POST', '/contact-properties', { key: 'company_name', type: 'string' }, 'validation_error', /already exists/],
    ];
    for (const [method, path, body, name, message] of cases) {
      const res = await rawRequest(t, method, path, { body: body as object });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.name, name, JSON.stringify(body));
      assert.match(res.body.message, message);
    }
    const keyAt50 = await t.resend.contactProperties.create({ key: 'k'.repeat(50), type: 'string' });
    assert.equal(keyAt50.error, null);
    const { data } = await t.resend.contactProperties.create({ key: 'score', type: 'number', fallbackValue: 1 });
    for (const body of [{ key: 'other' }, { type: 'string' }, { fallback_value: 'one' }, { name: 'x' }]) {
      const res = await rawRequest(t, 'PATCH', `/contact-properties/${data!.id}`, { body });
      assert.equal(res.status, 422, JSON.stringify(body));
    }
    assert.equal((await t.resend.contactProperties.get(data!.id)).data!.fallbackValue, 1);
  });

  it('checks contact properties against the definitions, merges updates, and forgets deleted ones', async () => {
    const plan = (await t.resend.contactProperties.create({ key: 'plan', type: 'string' })).data!.id;
    await t.resend.contactProperties.create({ key: 'seats', type: 'number', fallbackValue: 1 });
    const created = await t.resend.contacts.create({ email: 'typed@example.com', properties: { plan: 'pro', seats: 5 } });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const id = created.data!.id;
    const got = await t.resend.contacts.get(id);
    assert.deepEqual(got.data!.properties, { plan: { type: 'string', value: 'pro' }, seats: { type: 'number', value: 5 } });

    for (const properties of [{ seats: 'five' }, { plan: 3 }, { undefined_key: 'x' }] as Record<string, string | number>[]) {
      const res = await t.resend.contacts.update({ id, properties });
      assert.equal(res.error?.statusCode, 422, JSON.stringify(properties));
      assert.equal(res.error?.name, 'validation_error');
    }
    const bad = await t.resend.contacts.create({ email: 'typed2@example.com', properties: { seats: '5' } });
    assert.match(bad.error!.message, /property `seats` must be a number/);
    const unknown = await t.resend.contacts.create({ email: 'typed2@example.com', properties: { tier: 'gold' } });
    assert.match(unknown.error!.message, /property `tier` does not exist/);

    // PATCH merges: given keys change, null clears one, others stay.
    await t.resend.contacts.update({ id, properties: { seats: null } });
    assert.deepEqual((await t.resend.contacts.get(id)).data!.properties, { plan: { type: 'string', value: 'pro' } });
    await t.resend.contacts.update({ id, properties: { seats: 9 } });
    assert.deepEqual(Object.keys((await t.resend.contacts.get(id)).data!.properties).sort(), ['plan', 'seats']);

    await t.resend.contactProperties.remove(plan);
    assert.deepEqual((await t.resend.contacts.get(id)).data!.properties, { seats: { type: 'number', value: 9 } });
  });

  it("keeps each account's properties to itself", async () => {
    const { data } = await t.resend.contactProperties.create({ key: 'private_key', type: 'string' });
    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    assert.equal((await stranger.contactProperties.get(data!.id)).error?.statusCode, 404);
    assert.equal((await stranger.contactProperties.update({ id: data!.id, fallbackValue: 'x' })).error?.statusCode, 404);
    assert.equal((await stranger.contactProperties.remove(data!.id)).error?.statusCode, 404);
    assert.deepEqual((await stranger.contactProperties.list()).data!.data, []);
    const theirs = await stranger.contacts.create({ email: 'p@example.com', properties: { private_key: 'x' } });
    assert.match(theirs.error!.message, /does not exist/);
    assert.equal((await stranger.contactProperties.create({ key: 'private_key', type: 'number' })).error, null, 'keys are per account');
  });
});

describe('/topics and /contacts/:contact/topics: subscriptions', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
  });
  after(() => t.stop());

  it('creates, gets, lists, updates and removes a topic; default_subscription is fixed', async () => {
    const created = await t.resend.topics.create({ name: 'Product updates', defaultSubscription: 'opt_in', description: 'Monthly' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.deepEqual(Object.keys(created.data!).sort(), ['id', 'object']);
    const id = created.data!.id;
    const got = await t.resend.topics.get(id);
    assert.deepEqual(
      { ...got.data!, created_at: undefined },
      {
        object: 'topic',
        id,
        name: 'Product updates',
        description: 'Monthly',
        default_subscription: 'opt_in',
        visibility: 'private',
        created_at: undefined,
      },
    );
    assert.match(got.data!.created_at, TIMESTAMP);

    const publicTopic = await rawRequest(t, 'POST', '/topics', { body: { name: 'Events', default_subscription: 'opt_out', visibility: 'public' } });
    assert.equal(publicTopic.status, 201);
    const list = await t.resend.topics.list();
    assert.equal((list.data as any).object, 'list');
    assert.deepEqual(
      list.data!.data.map((x) => [x.name, (x as any).visibility]),
      [
        ['Events', 'public'],
        ['Product updates', 'private'],
      ],
    );

    const updated = await t.resend.topics.update({ id, name: 'Changelog', description: 'Weekly' });
    assert.equal(updated.error, null, JSON.stringify(updated.error));
    assert.deepEqual(updated.data, { object: 'topic', id });
    const after = (await t.resend.topics.get(id)).data!;
    assert.equal(after.name, 'Changelog');
    assert.equal(after.description, 'Weekly');
    const immutable = await rawRequest(t, 'PATCH', `/topics/${id}`, { body: { default_subscription: 'opt_out' } });
    assert.equal(immutable.status, 422);
    assert.match(immutable.body.message, /cannot be changed/);
    assert.equal((await t.resend.topics.get(id)).data!.default_subscription, 'opt_in');

    const removed = await t.resend.topics.remove(publicTopic.body.id);
    assert.deepEqual(removed.data, { object: 'topic', id: publicTopic.body.id, deleted: true });
    assert.equal((await t.resend.topics.get(publicTopic.body.id)).error?.statusCode, 404);
  });

  it('refuses bad topics', async () => {
    const cases: [string, unknown, string, RegExp][] = [
      ['POST', { default_subscription: 'opt_in' }, 'missing_required_field', /Missing `name` field/],
      ['POST', { name: 'x' }, 'missing_required_field', /Missing `default_subscription` field/],
      ['POST', { name: 'x'.repeat(51), default_subscription: 'opt_in' }, 'validation_error', /at most 50/],
      ['POST', { name: 'x', default_subscription: 'maybe' }, 'validation_error', /default_subscription/],
      ['POST', { name: 'x', default_subscription: 'opt_in', description: 'd'.repeat(201) }, 'validation_error', /at most 200/],
      ['POST', { name: 'x', default_subscription: 'opt_in', visibility: 'secret' }, 'validation_error', /visibility/],
      ['POST', { name: 'x', default_subscription: 'opt_in', color: 'red' }, 'validation_error', /Unknown field `color`/],
    ];
    for (const [method, body, name, message] of cases) {
      const res = await rawRequest(t, method, '/topics', { body: body as object });
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.name, name);
      assert.match(res.body.message, message);
    }
    const { data } = await t.resend.topics.create({ name: 'T', defaultSubscription: 'opt_out' });
    const otherId = await rawRequest(t, 'PATCH', `/topics/${data!.id}`, { body: { id: crypto.randomUUID(), name: 'y' } });
    assert.equal(otherId.status, 422);
    const badName = await rawRequest(t, 'PATCH', `/topics/${data!.id}`, { body: { name: 'y'.repeat(51) } });
    assert.equal(badName.status, 422);
  });

  it("lists a contact's subscriptions (explicit, else the default) and updates them", async () => {
    const optIn = (await t.resend.topics.create({ name: 'In by default', defaultSubscription: 'opt_in' })).data!.id;
    const optOut = (await t.resend.topics.create({ name: 'Out by default', defaultSubscription: 'opt_out' })).data!.id;
    const contact = await t.resend.contacts.create({ email: 'subs@example.com', topics: [{ id: optOut, subscription: 'opt_in' }] });
    assert.equal(contact.error, null, JSON.stringify(contact.error));
    const listed = await t.resend.contacts.topics.list({ email: 'subs@example.com' });
    assert.equal(listed.error, null, JSON.stringify(listed.error));
    const byId = new Map(listed.data!.data.map((x) => [x.id, x]));
    assert.equal(byId.get(optIn)!.subscription, 'opt_in');
    assert.equal(byId.get(optOut)!.subscription, 'opt_in');
    assert.deepEqual(Object.keys(byId.get(optIn)!).sort(), ['description', 'id', 'name', 'subscription']);

    const updated = await t.resend.contacts.topics.update({
      id: contact.data!.id,
      topics: [
        { id: optIn, subscription: 'opt_out' },
        { id: optOut, subscription: 'opt_out' },
      ],
    });
    assert.equal(updated.error, null, JSON.stringify(updated.error));
    assert.equal((updated.data as any).object, 'contact_topics');
    assert.equal((updated.data as any).contact_id, contact.data!.id);
    const after = await t.resend.contacts.topics.list({ id: contact.data!.id });
    assert.ok(after.data!.data.filter((x) => x.id === optIn || x.id === optOut).every((x) => x.subscription === 'opt_out'));
    const page = await t.resend.contacts.topics.list({ id: contact.data!.id, limit: 1 });
    assert.equal(page.data!.data.length, 1);
    assert.equal(page.data!.has_more, true);

    const bad = [[{ id: optIn, subscription: 'sometimes' }], [{ id: 'not-a-uuid', subscription: 'opt_in' }], [{ subscription: 'opt_in' }], []];
    for (const body of bad) {
      const res = await rawRequest(t, 'PATCH', `/contacts/${contact.data!.id}/topics`, { body });
      assert.equal(res.status, 422, JSON.stringify(body));
    }
    // The bare array's count, in terms of `topics` as the object form's (contact-topics-body.unit.test.ts has the rest).
    const none = await rawRequest(t, 'PATCH', `/contacts/${contact.data!.id}/topics`, { body: [] });
    assert.deepEqual(none.body, { statusCode: 422, name: 'validation_error', message: 'The `topics` field must have at least 1 item.' });
    const tooMany = await rawRequest(t, 'PATCH', `/contacts/${contact.data!.id}/topics`, { body: Array(101).fill({ id: optIn, subscription: 'opt_in' }) });
    assert.deepEqual(tooMany.body, { statusCode: 422, name: 'validation_error', message: 'The `topics` field must have at most 100 items.' });
    // The OpenAPI contract's form, {topics: [...]}, is taken as well as the SDK's bare array.
    const wrapped = await rawRequest(t, 'PATCH', `/contacts/${contact.data!.id}/topics`, { body: { topics: [{ id: optIn, subscription: 'opt_in' }] } });
    assert.equal(wrapped.status, 200, JSON.stringify(wrapped.body));
    assert.deepEqual(wrapped.body.topics, [{ id: optIn, subscription: 'opt_in' }]);
    for (const body of [{ topics: [] }, {}, { topics: [{ id: optIn, subscription: 'opt_in' }], extra: 1 }, '"opt_in"']) {
      const res = await rawRequest(t, 'PATCH', `/contacts/${contact.data!.id}/topics`, { body });
      assert.equal(res.status, 422, JSON.stringify(body));
    }

    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    const theirs = (await stranger.contacts.create({ email: 'them@example.com' })).data!.id;
    const cross = await stranger.contacts.topics.update({ id: theirs, topics: [{ id: optIn, subscription: 'opt_in' }] });
    assert.deepEqual(cross.error, { statusCode: 404, message: 'Topic not found', name: 'not_found' });
    assert.equal((await stranger.contacts.topics.list({ id: contact.data!.id })).error?.statusCode, 404);
    assert.equal((await stranger.topics.get(optIn)).error?.statusCode, 404);
    assert.equal((await stranger.topics.update({ id: optIn, name: 'x' })).error?.statusCode, 404);
    assert.equal((await stranger.topics.remove(optIn)).error?.statusCode, 404);
    const crossCreate = await stranger.contacts.create({ email: 'new@example.com', topics: [{ id: optIn, subscription: 'opt_in' }] });
    assert.equal(crossCreate.error?.statusCode, 404);
    assert.deepEqual((await stranger.topics.list()).data!.data, []);

    // A topic deleted takes the contacts' choices with it.
    await t.resend.topics.remove(optOut);
    const rows = await t.sql('SELECT 1 FROM contact_topics WHERE topic_id = $1', [optOut]);
    assert.equal(rows.length, 0);
  });
});
