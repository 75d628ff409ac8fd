import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const item = (i: number, extra: Record<string, unknown> = {}) => ({
  from: 'Acme <hello@acme.test>',
  to: `user${i}@example.org`,
  subject: `Batch ${i}`,
  html: `<p>Email number ${i}</p>`,
  ...extra,
});

describe('batch sending', () => {
  let t: TestPostline;
  const emailCount = async () => (await t.sql('SELECT count(*)::int AS n FROM emails'))[0].n as number;
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
  });
  after(() => t.stop());

  it('accepts up to 100 emails and returns their ids in request order (strict, the SDK default)', async () => {
    const emails = Array.from({ length: 100 }, (_, i) => item(i, { tags: [{ name: 'n', value: String(i) }] }));
    const res = await t.resend.batch.send(emails);
    assert.equal(res.error, null, JSON.stringify(res.error));
    assert.equal(res.data!.data.length, 100);
    assert.ok(!('errors' in res.data!), 'strict responses carry only data');
    const ids = res.data!.data.map((d) => d.id);
    assert.equal(new Set(ids).size, 100);
    const rows = await t.sql('SELECT id, subject, to_addresses FROM emails WHERE id = ANY($1::uuid[])', [ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    ids.forEach((id, i) => {
      assert.equal(byId.get(id).subject, `Batch ${i}`);
      assert.deepEqual(byId.get(id).to_addresses, [`user${i}@example.org`]);
    });
    const deliveries = await t.sql('SELECT count(*)::int AS n FROM deliveries WHERE email_id = ANY($1::uuid[])', [ids]);
    assert.equal(deliveries[0].n, 100);
    // Newest first: the list shows the batch in reverse request order.
    const list = await t.resend.emails.list({ limit: 100 });
    assert.deepEqual(
      list.data!.data.map((e) => e.id),
      [...ids].reverse(),
    );
    const got = await t.resend.emails.get(ids[42]!);
    assert.equal(got.data!.subject, 'Batch 42');
    assert.deepEqual(got.data!.tags, [{ name: 'n', value: '42' }]);
  });

  it('refuses 101 emails, an empty batch and a body that is not an array', async () => {
    const before0 = await emailCount();
    const tooMany = await t.resend.batch.send(Array.from({ length: 101 }, (_, i) => item(i)));
    assert.equal(tooMany.error?.statusCode, 422);
    assert.equal(tooMany.error?.name, 'validation_error');
    assert.match(tooMany.error!.message, /at most 100/);
    const empty = await rawRequest(t, 'POST', '/emails/batch', { body: '[]' });
    assert.equal(empty.status, 422);
    const object = await rawRequest(t, 'POST', '/emails/batch', { body: item(0) });
    assert.equal(object.status, 422);
    assert.equal(object.body.name, 'validation_error');
    const notObjects = await rawRequest(t, 'POST', '/emails/batch', { body: '[1, "a"]' });
    assert.equal(notObjects.status, 422);
    assert.equal(await emailCount(), before0);
  });

  it('strict: one invalid email rejects the whole batch with its error and writes nothing', async () => {
    const before0 = await emailCount();
    const res = await t.resend.batch.send([item(0), item(1, { to: 'not-an-address' }), item(2, { from: 'a@unverified.test' })]);
    assert.equal(res.error?.statusCode, 422);
    assert.equal(res.error?.name, 'validation_error');
    assert.match(res.error!.message, /Invalid `to` field/);
    // The first invalid email decides, whatever kind of error it has.
    const domainFirst = await t.resend.batch.send([item(0), item(1, { from: 'a@unverified.test' }), item(2, { to: 'bad' })]);
    assert.equal(domainFirst.error?.statusCode, 403);
    assert.match(domainFirst.error!.message, /`unverified.test` domain is not verified/);
    const missing = await rawRequest(t, 'POST', '/emails/batch', { body: [item(0), { to: 'a@example.org', subject: 's', html: 'h' }] });
    assert.equal(missing.status, 422);
    assert.deepEqual(missing.body, { statusCode: 422, message: 'Missing `from` field.', name: 'missing_required_field' });
    assert.equal(await emailCount(), before0);
  });

  it('permissive: accepts the valid emails and reports the others by index', async () => {
    const before0 = await emailCount();
    const res = await t.resend.batch.send(
      [item(0), item(1, { to: 'not-an-address' }), item(2), item(3, { from: 'a@unverified.test' }), item(4, { subject: 'x\r\nBcc: a@b.c' })],
      { batchValidation: 'permissive' },
    );
    assert.equal(res.error, null, JSON.stringify(res.error));
    assert.equal(res.data!.data.length, 2);
    assert.deepEqual(
      res.data!.errors!.map((e) => e.index),
      [1, 3, 4],
    );
    assert.match(res.data!.errors![0]!.message, /Invalid `to` field/);
    assert.match(res.data!.errors![1]!.message, /not verified/);
    const subjects = await t.sql('SELECT subject FROM emails WHERE id = ANY($1::uuid[]) ORDER BY created_at', [res.data!.data.map((d) => d.id)]);
    assert.deepEqual(
      subjects.map((r) => r.subject),
      ['Batch 0', 'Batch 2'],
    );
    assert.equal(await emailCount(), before0 + 2);

    const allGood = await t.resend.batch.send([item(5)], { batchValidation: 'permissive' });
    assert.deepEqual(allGood.data!.errors, [], 'errors is always present in permissive mode');
    const allBad = await t.resend.batch.send([item(6, { to: 'x' })], { batchValidation: 'permissive' });
    assert.deepEqual(allBad.data!.data, []);
    assert.equal(allBad.data!.errors!.length, 1);
  });

  it('refuses attachments and scheduled_at in batch items, and an unknown validation mode', async () => {
    const before0 = await emailCount();
    const attachments = await rawRequest(t, 'POST', '/emails/batch', {
      body: [item(0, { attachments: [{ filename: 'a.txt', content: 'aGk=' }] })],
    });
    assert.equal(attachments.status, 422);
    assert.equal(attachments.body.name, 'validation_error');
    assert.equal(attachments.body.message, 'The `attachments` field must be left out of batch emails, not [{"filename":"a.txt","content":"aGk="}].');
    const scheduled = await t.resend.batch.send([item(0, { scheduledAt: 'in 1 hour' })]);
    assert.equal(scheduled.error?.statusCode, 422);
    assert.equal(scheduled.error?.name, 'validation_error');
    assert.equal(scheduled.error?.message, 'The `scheduled_at` field must be left out of batch emails, not "in 1 hour".');
    const mode = await rawRequest(t, 'POST', '/emails/batch', { body: [item(0)], headers: { 'x-batch-validation': 'lenient' } });
    assert.equal(mode.status, 422);
    assert.match(mode.body.message, /x-batch-validation/);
    assert.equal(await emailCount(), before0);
  });
});
