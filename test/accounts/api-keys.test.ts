import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('API keys', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t.stop());

  it('creates a key whose token works once shown, lists it without the token, renames and deletes it', async () => {
    const created = await t.resend.apiKeys.create({ name: 'ci' });
    assert.equal(created.error, null);
    assert.match(created.data!.token, /^re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}$/);
    const other = new Resend(created.data!.token, { baseUrl: t.url });
    const list = await other.apiKeys.list();
    assert.equal(list.error, null);
    const listed = list.data!.data.find((k) => k.id === created.data!.id)!;
    assert.equal(listed.name, 'ci');
    assert.match(listed.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/);
    assert.ok(!('token' in listed));

    const renamed = await rawRequest(t, 'PATCH', `/api-keys/${created.data!.id}`, { body: { name: 'renamed' } });
    assert.deepEqual(renamed.body, { object: 'api_key', id: created.data!.id });

    const removed = await t.resend.apiKeys.remove(created.data!.id);
    assert.deepEqual(removed.data, { object: 'api_key', id: created.data!.id, deleted: true });
    const after = await other.apiKeys.list();
    assert.equal(after.error?.name, 'invalid_api_key');
    assert.equal(after.error?.statusCode, 403);
  });

  it('rejects a missing, unknown or restricted key with Resend errors', async () => {
    const missing = await rawRequest(t, 'GET', '/api-keys', { auth: null });
    assert.equal(missing.status, 401);
    assert.deepEqual(missing.body, { statusCode: 401, message: 'Missing API key in the authorization header.', name: 'missing_api_key' });

    const unknown = await new Resend('re_unknown0_000000000000000000000000', { baseUrl: t.url }).apiKeys.list();
    assert.equal(unknown.error?.name, 'invalid_api_key');

    const sending = await t.resend.apiKeys.create({ name: 'sender', permission: 'sending_access' });
    const restricted = await new Resend(sending.data!.token, { baseUrl: t.url }).apiKeys.list();
    assert.equal(restricted.error?.name, 'restricted_api_key');
    assert.equal(restricted.error?.statusCode, 401);
  });

  it('validates permission, name and domain_id', async () => {
    const bad = await t.resend.apiKeys.create({ name: 'x', permission: 'admin' as any });
    assert.equal(bad.error?.name, 'invalid_access');
    assert.equal(bad.error?.statusCode, 422);
    const noName = await rawRequest(t, 'POST', '/api-keys', { body: {} });
    assert.equal(noName.status, 422);
    assert.equal(noName.body.name, 'missing_required_field');
    const wrongType = await rawRequest(t, 'POST', '/api-keys', { body: { name: 42 } });
    assert.equal(wrongType.status, 422);
    assert.equal(wrongType.body.name, 'validation_error');
    const unknownField = await rawRequest(t, 'POST', '/api-keys', { body: { name: 'x', scope: 'all' } });
    assert.equal(unknownField.status, 422);
    const foreignDomain = await t.resend.apiKeys.create({
      name: 'x',
      permission: 'sending_access',
      domain_id: '00000000-0000-4000-8000-000000000000',
    });
    assert.equal(foreignDomain.error?.name, 'not_found');
  });

  it("never shows or deletes another account's keys", async () => {
    const other = await t.resend.apiKeys.create({ name: 'mine' });
    const { createAccount } = await import('../../src/accounts/accounts.js');
    const stranger = await createAccount(t.postline.db, 'stranger');
    const strangerClient = new Resend(stranger.token, { baseUrl: t.url });
    const list = await strangerClient.apiKeys.list();
    assert.ok(!list.data!.data.some((k) => k.id === other.data!.id));
    const del = await strangerClient.apiKeys.remove(other.data!.id);
    assert.equal(del.error?.name, 'not_found');
    assert.equal(del.error?.message, 'API key not found');
  });
});
