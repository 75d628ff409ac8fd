// An Idempotency-Key lives 24 hours: within them a replay answers the first response and
// another body is refused; after them the key is free for a new request, and housekeeping
// deletes it. The test cannot wait a day: it moves a key's creation back in the database, the
// one clock Postline reads for it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';

const FIRST = { from: 'hello@acme.test', to: 'delivered@resend.dev', subject: 'First', html: '<p>1</p>' };
const SECOND = { ...FIRST, subject: 'Second', html: '<p>2</p>' };

describe('idempotency: keys expire after 24 hours', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
  });
  after(() => t.stop());

  const age = (key: string, interval: string) => t.sql(`UPDATE idempotency_keys SET created_at = now() - $2::interval WHERE key = $1`, [key, interval]);

  it('serves the first response for 24 hours, then takes the key for a new request', async () => {
    const first = await t.resend.emails.send(FIRST, { idempotencyKey: 'order/1' });
    assert.equal(first.error, null, JSON.stringify(first.error));
    await age('order/1', '23 hours 59 minutes');
    assert.equal((await t.resend.emails.send(FIRST, { idempotencyKey: 'order/1' })).data?.id, first.data!.id, 'a replay within the day');
    assert.equal((await t.resend.emails.send(SECOND, { idempotencyKey: 'order/1' })).error?.name, 'invalid_idempotent_request');

    await age('order/1', '24 hours 1 minute');
    const second = await t.resend.emails.send(SECOND, { idempotencyKey: 'order/1' });
    assert.equal(second.error, null, JSON.stringify(second.error));
    assert.notEqual(second.data!.id, first.data!.id);
    assert.equal((await t.resend.emails.get(second.data!.id)).data?.subject, 'Second');
    // The key now answers for the second request.
    assert.equal((await t.resend.emails.send(SECOND, { idempotencyKey: 'order/1' })).data?.id, second.data!.id);
    assert.equal((await t.resend.emails.send(FIRST, { idempotencyKey: 'order/1' })).error?.name, 'invalid_idempotent_request');
  });

  it('housekeeping deletes expired keys and keeps the others', async () => {
    for (const key of ['old', 'recent']) assert.equal((await t.resend.emails.send(FIRST, { idempotencyKey: key })).error, null);
    await age('old', '25 hours');
    await age('recent', '23 hours');
    await t.restart(); // housekeeping runs when the worker role starts
    await eventually(async () => (await t.sql(`SELECT 1 FROM idempotency_keys WHERE key = 'old'`)).length === 0, 15_000, 'the expired key purged');
    assert.equal((await t.sql(`SELECT 1 FROM idempotency_keys WHERE key = 'recent'`)).length, 1);
  });
});
