// The contract other concepts code against (src/audience/contact-store.ts): broadcasts,
// automations and imports call these functions inside their own transactions, so they are
// exercised here directly on the database, next to the HTTP tests of the same behaviour.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.js';
import { ApiError } from '../../src/api/errors.js';
import {
  addContactToSegment,
  contactVariables,
  createContact,
  deleteContact,
  findContact,
  findOrCreateContact,
  setTopicSubscriptions,
  updateContact,
} from '../../src/audience/contact-store.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';

describe('contact-store: the audience contract', () => {
  let t: TestPostline;
  let accountId: string;
  before(async () => {
    t = await startTestPostline({ roles: ['api'] });
    accountId = (await t.sql('SELECT account_id FROM api_keys LIMIT 1'))[0].account_id;
  });
  after(() => t.stop());

  const db = () => t.postline.db;
  const contactEvents = async (id: string) =>
    (await t.sql("SELECT type FROM events WHERE type LIKE 'contact.%' AND data->>'id' = $1 ORDER BY id", [id])).map((r) => r.type);

  it('creates, finds by id or address, updates, deletes, recording each event in the caller’s transaction', async () => {
    const contact = await db().tx((q) => createContact(q, accountId, { email: 'Store@Example.com', firstName: 'Sto' }));
    assert.equal(contact.email, 'store@example.com');
    assert.equal(contact.firstName, 'Sto');
    assert.equal(contact.lastName, null);
    assert.equal(contact.unsubscribed, false);
    assert.deepEqual(contact.properties, {});
    assert.ok(contact.createdAt instanceof Date);
    assert.equal((await findContact(db(), accountId, 'STORE@example.com'))!.id, contact.id);
    assert.equal((await findContact(db(), accountId, contact.id))!.email, 'store@example.com');
    assert.equal(await findContact(db(), accountId, 'nobody@example.com'), undefined);

    const updated = await db().tx((q) => updateContact(q, accountId, contact.id, { unsubscribed: true }));
    assert.equal(updated!.unsubscribed, true);
    assert.equal(await db().tx((q) => updateContact(q, accountId, crypto.randomUUID(), { unsubscribed: true })), undefined);
    assert.equal(await db().tx((q) => deleteContact(q, accountId, contact.id)), true);
    assert.equal(await db().tx((q) => deleteContact(q, accountId, contact.id)), false);
    assert.deepEqual(await contactEvents(contact.id), ['contact.created', 'contact.updated', 'contact.deleted']);

    // A rolled-back transaction leaves neither the contact nor its event.
    await assert.rejects(
      db().tx(async (q) => {
        await createContact(q, accountId, { email: 'rolled@example.com' });
        throw new Error('the caller fails later');
      }),
    );
    assert.equal(await findContact(db(), accountId, 'rolled@example.com'), undefined);
    assert.equal((await t.sql("SELECT 1 FROM events WHERE data->>'email' = 'rolled@example.com'")).length, 0);
  });

  it('refuses bad fields with ApiError', async () => {
    for (const fields of [{ email: 'nope' }, { email: 'x@example.com', properties: { undefined_key: 1 } }]) {
      await assert.rejects(
        db().tx((q) => createContact(q, accountId, fields)),
        (err: unknown) => {
          assert.ok(err instanceof ApiError);
          assert.equal(err.statusCode, 422);
          return true;
        },
      );
    }
  });

  it('finds or creates one contact per address, even when asked concurrently', async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => db().tx((q) => findOrCreateContact(q, accountId, 'Race@Example.com'))));
    assert.equal(new Set(results.map((r) => r.contact.id)).size, 1);
    assert.equal(results.filter((r) => r.created).length, 1);
    assert.deepEqual(await contactEvents(results[0]!.contact.id), ['contact.created']);
    const again = await db().tx((q) => findOrCreateContact(q, accountId, 'race@example.com'));
    assert.equal(again.created, false);
  });

  it('adds to segments and sets topics only within the account', async () => {
    const contact = await db().tx((q) => createContact(q, accountId, { email: 'member@example.com' }));
    const segment = (await t.resend.segments.create({ name: 'S' })).data!.id;
    await db().tx((q) => addContactToSegment(q, accountId, contact.id, segment));
    await db().tx((q) => addContactToSegment(q, accountId, contact.id, segment));
    assert.deepEqual(
      (await t.resend.contacts.segments.list({ contactId: contact.id })).data!.data.map((s) => s.id),
      [segment],
    );

    const stranger = await createAccount(db(), 'stranger');
    await assert.rejects(
      db().tx((q) => addContactToSegment(q, stranger.accountId, contact.id, segment)),
      { statusCode: 404 },
    );

    const topic = (await t.resend.topics.create({ name: 'T', defaultSubscription: 'opt_in' })).data!.id;
    await db().tx((q) => setTopicSubscriptions(q, accountId, contact.id, [{ topicId: topic, subscription: 'opt_out' }]));
    const topics = await t.resend.contacts.topics.list({ id: contact.id });
    assert.equal(topics.data!.data.find((x) => x.id === topic)!.subscription, 'opt_out');
    await assert.rejects(
      db().tx((q) => setTopicSubscriptions(q, stranger.accountId, contact.id, [{ topicId: topic, subscription: 'opt_in' }])),
      { statusCode: 404 },
    );
    assert.deepEqual(await contactEvents(contact.id), ['contact.created', 'contact.updated']);
  });

  it('gives merge variables: contact fields, property values, else fallbacks', async () => {
    await t.resend.contactProperties.create({ key: 'company', type: 'string', fallbackValue: 'your company' });
    await t.resend.contactProperties.create({ key: 'seats', type: 'number', fallbackValue: 1 });
    await t.resend.contactProperties.create({ key: 'nickname', type: 'string' });
    const contact = await db().tx((q) => createContact(q, accountId, { email: 'vars@example.com', firstName: 'Ada', properties: { seats: 12 } }));
    const variables = await contactVariables(db(), accountId, contact);
    assert.deepEqual(variables, { FIRST_NAME: 'Ada', EMAIL: 'vars@example.com', company: 'your company', seats: 12 });
  });
});
