import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const EMAIL = { from: 'hello@acme.test', to: 'ann@example.org', subject: 'Once', html: '<p>Only once</p>' };

describe('Idempotency-Key on the send endpoints', () => {
  let t: TestPostline;
  const emailCount = async () => (await t.sql('SELECT count(*)::int AS n FROM emails'))[0].n as number;
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
  });
  after(() => t.stop());

  it('replays the first response for the same key and body and sends nothing new', async () => {
    const first = await t.resend.emails.send(EMAIL, { idempotencyKey: 'welcome-user/1' });
    assert.equal(first.error, null);
    const count = await emailCount();
    const again = await t.resend.emails.send(EMAIL, { idempotencyKey: 'welcome-user/1' });
    assert.equal(again.error, null);
    assert.deepEqual(again.data, first.data);
    assert.equal(await emailCount(), count);
    // Another key is another email.
    const other = await t.resend.emails.send(EMAIL, { idempotencyKey: 'welcome-user/2' });
    assert.notEqual(other.data!.id, first.data!.id);
  });

  it('answers 409 invalid_idempotent_request for the same key with another body', async () => {
    await t.resend.emails.send(EMAIL, { idempotencyKey: 'body-check' });
    const count = await emailCount();
    const changed = await t.resend.emails.send({ ...EMAIL, subject: 'Changed' }, { idempotencyKey: 'body-check' });
    assert.equal(changed.error?.statusCode, 409);
    assert.equal(changed.error?.name, 'invalid_idempotent_request');
    assert.equal(await emailCount(), count);
  });

  it('accepts a 256-character key and refuses 257 characters with 400 invalid_idempotency_key', async () => {
    const longest = await t.resend.emails.send(EMAIL, { idempotencyKey: 'k'.repeat(256) });
    assert.equal(longest.error, null);
    const count = await emailCount();
    const tooLong = await t.resend.emails.send(EMAIL, { idempotencyKey: 'k'.repeat(257) });
    assert.equal(tooLong.error?.statusCode, 400);
    assert.equal(tooLong.error?.name, 'invalid_idempotency_key');
    const emptyKey = await rawRequest(t, 'POST', '/emails', { body: EMAIL, headers: { 'idempotency-key': '' } });
    assert.equal(emptyKey.status, 400);
    assert.equal(emptyKey.body.name, 'invalid_idempotency_key');
    assert.equal(await emailCount(), count);
  });

  it('sends one email for concurrent requests with the same key; the others get 409 or the replay', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => rawRequest(t, 'POST', '/emails', { body: EMAIL, headers: { 'idempotency-key': 'concurrent' } })),
    );
    const ok = results.filter((r) => r.status === 200);
    const busy = results.filter((r) => r.status === 409);
    assert.equal(ok.length + busy.length, 8, JSON.stringify(results.map((r) => r.body)));
    assert.ok(ok.length >= 1);
    assert.equal(new Set(ok.map((r) => r.body.id)).size, 1, 'every 200 carries the one id');
    for (const r of busy) assert.equal(r.body.name, 'concurrent_idempotent_requests');
    const rows = await t.sql('SELECT count(*)::int AS n FROM emails WHERE id = $1', [ok[0]!.body.id]);
    assert.equal(rows[0].n, 1);
  });

  it('keeps nothing for a request that failed, so the key can be used again', async () => {
    const failed = await t.resend.emails.send({ ...EMAIL, to: 'not-an-address' }, { idempotencyKey: 'retry-after-fix' });
    assert.equal(failed.error?.statusCode, 422);
    const fixed = await t.resend.emails.send({ ...EMAIL, to: 'ann@example.org' }, { idempotencyKey: 'retry-after-fix' });
    assert.equal(fixed.error, null, JSON.stringify(fixed.error));
  });

  it('scopes keys per account and per endpoint', async () => {
    const mine = await t.resend.emails.send(EMAIL, { idempotencyKey: 'shared-key' });
    assert.equal(mine.error, null, JSON.stringify(mine.error));
    const stranger = await createAccount(t.postline.db, 'stranger');
    const strangerClient = new Resend(stranger.token, { baseUrl: t.url });
    const theirs = await strangerClient.emails.send(EMAIL, { idempotencyKey: 'shared-key' });
    // The stranger has no verified domain: their request is judged on its own (403), where a
    // replay of mine would have answered 200 with my email's id.
    assert.equal(theirs.error?.statusCode, 403);
    assert.equal(theirs.data, null);

    const batch = await t.resend.batch.send([EMAIL], { idempotencyKey: 'shared-key' });
    assert.equal(batch.error, null, JSON.stringify(batch.error));
    assert.notEqual(batch.data!.data[0]!.id, mine.data!.id);
  });

  it('replays a batch, permissive errors included', async () => {
    const body = [EMAIL, { ...EMAIL, to: 'bad' }];
    const first = await t.resend.batch.send(body, { idempotencyKey: 'batch-1', batchValidation: 'permissive' });
    assert.equal(first.error, null);
    const count = await emailCount();
    const again = await t.resend.batch.send(body, { idempotencyKey: 'batch-1', batchValidation: 'permissive' });
    assert.deepEqual(again.data, first.data);
    assert.equal(await emailCount(), count);
    const changed = await t.resend.batch.send([EMAIL], { idempotencyKey: 'batch-1', batchValidation: 'permissive' });
    assert.equal(changed.error?.name, 'invalid_idempotent_request');
  });
});
