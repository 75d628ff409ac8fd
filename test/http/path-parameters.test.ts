// Path parameters are checked by the schemas their routes document (src/api/request-schema.ts
// paramsCheck), as the official SDK meets them: a malformed id is Resend's 422 "The `id` must be
// a valid UUID." (resend-node#812) before any handler runs; a well-formed one that is not there
// is still the route's own 404; and a parameter that takes an id or a name (a contact's
// address, unencoded) is not refused for not being an id.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const malformedId = { statusCode: 422, name: 'validation_error', message: 'The `id` must be a valid UUID.' };

describe('HTTP: path parameters checked against their schemas', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t?.stop());

  it("refuses a malformed id with Resend's 422, whatever the route", async () => {
    const r = t.resend;
    const answers = {
      'emails.get': await r.emails.get('not-a-uuid'),
      'emails.cancel': await r.emails.cancel('not-a-uuid'),
      'domains.get': await r.domains.get('example.com'),
      'webhooks.get': await r.webhooks.get('nope'),
      'apiKeys.remove': await r.apiKeys.remove('nope'),
      'broadcasts.get': await r.broadcasts.get('nope'),
      'segments.get': await r.segments.get('nope'),
    };
    for (const [method, answer] of Object.entries(answers)) assert.deepEqual(answer.error, malformedId, method);
    // Resend's own words where it names the parameter otherwise.
    assert.deepEqual((await r.logs.get('not-a-uuid')).error, { ...malformedId, message: 'The `logId` must be a valid UUID.' });
    // Any other refusal is the parameter's, as in a query.
    const message = await rawRequest(t, 'GET', `/webhooks/${crypto.randomUUID()}/events/not-a-message`);
    assert.equal(message.status, 422);
    assert.equal(message.body.name, 'invalid_parameter');
    assert.match(message.body.message, /^The `message_id` parameter must have the documented form/);
  });

  it("answers a well-formed id that is not there with the route's own 404", async () => {
    const id = crypto.randomUUID();
    assert.deepEqual((await t.resend.emails.get(id)).error, { statusCode: 404, name: 'not_found', message: 'Email not found' });
    assert.deepEqual((await t.resend.domains.get(id)).error, { statusCode: 404, name: 'not_found', message: 'Domain not found' });
    assert.deepEqual((await t.resend.webhooks.get(id)).error, { statusCode: 404, name: 'not_found', message: 'Webhook not found' });
    assert.deepEqual((await t.resend.logs.get(id)).error, { statusCode: 404, name: 'not_found', message: 'Log not found' });
  });

  it('takes an id or an address where the route does: a contact by its address, unencoded', async () => {
    const email = 'ann+news@example.org';
    const created = await t.resend.contacts.create({ email });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const byEmail = await t.resend.contacts.get({ email });
    assert.equal(byEmail.error, null, JSON.stringify(byEmail.error));
    assert.equal(byEmail.data!.id, created.data!.id);
    assert.equal((await t.resend.contacts.get(created.data!.id)).data?.email, email);
    assert.deepEqual((await t.resend.contacts.get({ email: 'nobody@example.org' })).error, {
      statusCode: 404,
      name: 'not_found',
      message: 'Contact not found',
    });
  });
});
