// domains.claims.* through the SDK: one account claims a domain another account of the
// installation holds, proves control with the TXT record the claim answers (published on the
// loopback DNS server Postline resolves through), and the domain moves.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain, publishMx, publishRecords, type PublishedRecord } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const REST_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/;

describe('domain claims: a domain moves between accounts with DNS proof', () => {
  let t: TestPostline;
  let holder: Resend;
  let holderKey: string;
  before(async () => {
    t = await startTestPostline();
    const account = await createAccount(t.postline.db, 'holder');
    holderKey = account.token;
    holder = new Resend(holderKey, { baseUrl: t.url });
    publishMx(t, 'example.org');
  });
  after(() => t.stop());

  const dkimOf = (records: { record: string; value: string }[]) => records.find((r) => r.record === 'DKIM')!.value;

  it('moves a verified domain to the claiming account once its TXT record is published', async () => {
    const held = await createVerifiedDomain({ dns: t.dns, resend: holder }, 'claimed.test');
    const heldDkim = dkimOf((await holder.domains.get(held.id)).data!.records);

    const started = await rawRequest(t, 'POST', '/domains/claim', { body: { name: 'Claimed.test', open_tracking: true } });
    assert.equal(started.status, 201);
    const claim = started.body;
    assert.equal(claim.object, 'domain_claim');
    assert.equal(claim.name, 'claimed.test');
    assert.equal(claim.status, 'pending');
    assert.equal(claim.region, 'us-east-1');
    assert.deepEqual(Object.keys(claim.record), ['type', 'name', 'value', 'ttl']);
    assert.equal(claim.record.type, 'TXT');
    assert.equal(claim.record.name, 'claimed.test');
    assert.match(claim.record.value, /^postline-domain-verification=[0-9a-f]{32}$/);
    assert.equal(claim.record.ttl, 'Auto');
    assert.equal(claim.blocked_reason, null);
    assert.equal(claim.failure_reason, null);
    assert.match(claim.created_at, REST_TIME);
    const lifetime = Date.parse(claim.expires_at.replace(' ', 'T').replace('+00', 'Z')) - Date.parse(claim.created_at.replace(' ', 'T').replace('+00', 'Z'));
    assert.equal(lifetime, 7 * 24 * 3600 * 1000);

    // The placeholder: in the claimant's account, with its own DKIM key; the holder's domain is untouched.
    const placeholder = (await t.resend.domains.get(claim.domain_id)).data!;
    assert.equal(placeholder.name, 'claimed.test');
    assert.equal(placeholder.status, 'not_started');
    // Postline's own mark, so a client tells it from a domain of the account's own, in the list too.
    assert.equal((placeholder as { placeholder?: true }).placeholder, true);
    assert.equal(((await t.resend.domains.list()).data!.data.find((d) => d.id === claim.domain_id) as { placeholder?: true }).placeholder, true);
    assert.equal(placeholder.open_tracking, true);
    assert.notEqual(dkimOf(placeholder.records), heldDkim);
    assert.equal((await holder.domains.get(held.id)).data!.status, 'verified');
    const notYet = await t.resend.domains.verify(claim.domain_id);
    assert.equal(notYet.error?.statusCode, 422);
    assert.match(notYet.error!.message, /still claimed from another account: verify its claim first/);

    // No proof yet: pending, and why.
    const missing = await t.resend.domains.claims.verify(claim.domain_id);
    assert.equal(missing.error, null);
    assert.equal(missing.data!.status, 'pending');
    assert.equal(missing.data!.failure_reason, `No TXT record \`${claim.record.value}\` was found at \`claimed.test\`.`);
    assert.equal((await t.resend.domains.claims.get(claim.domain_id)).data!.failure_reason, missing.data!.failure_reason);

    // Another token (a stale claim's) is not this claim's proof.
    t.dns.set('claimed.test', { TXT: [`postline-domain-verification=${'0'.repeat(32)}`, 'v=spf1 -all'] });
    const wrong = await t.resend.domains.claims.verify(claim.domain_id);
    assert.equal(wrong.data!.status, 'pending');
    assert.match(wrong.data!.failure_reason!, /hold another verification token, not this claim's/);
    assert.equal((await holder.domains.get(held.id)).data!.status, 'verified');

    t.dns.set('claimed.test', { TXT: ['v=spf1 -all', claim.record.value] });
    const done = await t.resend.domains.claims.verify(claim.domain_id);
    assert.equal(done.error, null);
    assert.equal(done.data!.status, 'completed');
    assert.equal(done.data!.failure_reason, null);
    assert.equal(done.data!.id, claim.id);
    assert.equal((await t.resend.domains.claims.get(claim.domain_id)).data!.status, 'completed');
    // Verifying a completed claim again changes nothing.
    assert.equal((await t.resend.domains.claims.verify(claim.domain_id)).data!.status, 'completed');

    // The holder's domain is gone; the claimant's is a new, unverified domain with the new key.
    assert.equal((await holder.domains.get(held.id)).error?.name, 'not_found');
    assert.ok(!(await holder.domains.list()).data!.data.some((d) => d.name === 'claimed.test'));
    const moved = (await t.resend.domains.get(claim.domain_id)).data!;
    assert.equal(moved.status, 'not_started');
    assert.equal((moved as { placeholder?: true }).placeholder, undefined);
    assert.equal(dkimOf(moved.records), dkimOf(placeholder.records));
    const refused = await holder.emails.send({ from: 'a@claimed.test', to: 'x@example.org', subject: 'Mine?', text: 'no' });
    assert.equal(refused.error?.statusCode, 403);

    // Events, through the one writer: the holder hears of the deletion, the claimant of its domain.
    const events = await t.sql(
      `SELECT type, data->>'id' AS id, data->>'status' AS status FROM events WHERE data->>'name' = 'claimed.test' AND type LIKE 'domain.%' ORDER BY events.id`,
    );
    const tail = events.slice(-3).map((e) => [e.type, e.id]);
    assert.deepEqual(tail, [
      ['domain.created', claim.domain_id],
      ['domain.deleted', held.id],
      ['domain.updated', claim.domain_id],
    ]);

    // Once its new records are published the claimant verifies it and sends from it.
    publishRecords(t, 'claimed.test', moved.records as PublishedRecord[]);
    await t.resend.domains.verify(claim.domain_id);
    assert.equal((await t.resend.domains.get(claim.domain_id)).data!.status, 'verified');
    const sent = await t.resend.emails.send({ from: 'a@claimed.test', to: 'x@example.org', subject: 'Mine now', text: 'yes' });
    assert.equal(sent.error, null);
  });

  it('is blocked while the holder still has mail from the domain to send, and completes once it is canceled', async () => {
    await createVerifiedDomain({ dns: t.dns, resend: holder }, 'busy.test');
    const scheduled = await holder.emails.send({ from: 'a@busy.test', to: 'x@example.org', subject: 'Later', text: 'later', scheduledAt: 'in 1 hour' });
    assert.equal(scheduled.error, null);
    const segment = (await holder.segments.create({ name: 'Readers' })).data!;
    const broadcast = (await holder.broadcasts.create({ segmentId: segment.id, from: 'News <News@Busy.test>', subject: 'Soon', html: '<p>Soon</p>' })).data!;
    assert.equal((await holder.broadcasts.send(broadcast.id, { scheduledAt: 'in 1 hour' })).error, null);
    const claim = (await t.resend.domains.claims.create({ name: 'busy.test' })).data!;
    t.dns.set('busy.test', { TXT: [claim.record.value] });

    const blocked = await t.resend.domains.claims.verify(claim.domain_id!);
    assert.equal(blocked.data!.status, 'blocked');
    assert.equal(blocked.data!.blocked_reason, 'pending_scheduled_emails');
    assert.ok((await holder.domains.list()).data!.data.some((d) => d.name === 'busy.test'));

    assert.equal((await holder.emails.cancel(scheduled.data!.id)).error, null);
    // The scheduled broadcast from the domain still holds it.
    assert.equal((await t.resend.domains.claims.verify(claim.domain_id!)).data!.status, 'blocked');
    const canceled = await rawRequest(t, 'POST', `/broadcasts/${broadcast.id}/cancel`, { auth: holderKey });
    assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
    const done = await t.resend.domains.claims.verify(claim.domain_id!);
    assert.equal(done.data!.status, 'completed');
    assert.equal(done.data!.blocked_reason, null);
  });

  it('answers an identical pending claim again (200), supersedes it with other settings, and cancels it with its placeholder', async () => {
    await holder.domains.create({ name: 'again.test' });
    const first = await rawRequest(t, 'POST', '/domains/claim', { body: { name: 'again.test' } });
    assert.equal(first.status, 201);
    const same = await rawRequest(t, 'POST', '/domains/claim', { body: { name: 'again.test', region: 'us-east-1' } });
    assert.equal(same.status, 200);
    assert.equal(same.body.id, first.body.id);

    const other = await rawRequest(t, 'POST', '/domains/claim', { body: { name: 'again.test', region: 'eu-west-1', click_tracking: true } });
    assert.equal(other.status, 201);
    assert.notEqual(other.body.id, first.body.id);
    assert.notEqual(other.body.record.value, first.body.record.value);
    assert.equal(other.body.domain_id, first.body.domain_id);
    assert.equal(other.body.region, 'eu-west-1');
    const statuses = await t.sql('SELECT id, status FROM domain_claims WHERE domain_id = $1 ORDER BY created_at', [first.body.domain_id]);
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['superseded', 'pending'],
    );
    // The old token no longer proves anything.
    t.dns.set('again.test', { TXT: [first.body.record.value] });
    assert.equal((await t.resend.domains.claims.verify(first.body.domain_id)).data!.status, 'pending');

    assert.equal((await t.resend.domains.remove(first.body.domain_id)).error, null);
    const canceled = await t.resend.domains.claims.get(first.body.domain_id);
    assert.equal(canceled.data!.status, 'canceled');
    assert.equal(canceled.data!.region, null);
    t.dns.set('again.test', { TXT: [other.body.record.value] });
    assert.equal((await t.resend.domains.claims.verify(first.body.domain_id)).data!.status, 'canceled');
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM domains WHERE name = 'again.test'`))[0].n, 1);
  });

  it('expires a claim seven days after it was made', async () => {
    await holder.domains.create({ name: 'slow.test' });
    const claim = (await t.resend.domains.claims.create({ name: 'slow.test' })).data!;
    // Days pass (as the warm-up tests make them): the claim's expiry moved into the past.
    await t.sql(`UPDATE domain_claims SET expires_at = now() - interval '1 second' WHERE id = $1`, [claim.id]);
    assert.equal((await t.resend.domains.claims.get(claim.domain_id!)).data!.status, 'expired');
    t.dns.set('slow.test', { TXT: [claim.record.value] });
    assert.equal((await t.resend.domains.claims.verify(claim.domain_id!)).data!.status, 'expired');
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM domains WHERE name = 'slow.test' AND NOT placeholder`))[0].n, 1);
    // A new claim starts over on the same placeholder.
    const again = await rawRequest(t, 'POST', '/domains/claim', { body: { name: 'slow.test' } });
    assert.equal(again.status, 201);
    assert.equal(again.body.domain_id, claim.domain_id);
    assert.equal(again.body.status, 'pending');
  });

  it("refuses claims of one's own domain and of a domain nobody holds", async () => {
    await t.resend.domains.create({ name: 'own.test' });
    const own = await t.resend.domains.claims.create({ name: 'own.test' });
    assert.deepEqual(own.error, {
      statusCode: 403,
      name: 'validation_error',
      message: "The `own.test` domain is already this account's: there is nothing to claim.",
    });
    const nobody = await t.resend.domains.claims.create({ name: 'nobody.test' });
    assert.deepEqual(nobody.error, {
      statusCode: 422,
      name: 'validation_error',
      message: 'No other account holds the `nobody.test` domain, so there is nothing to claim: add it with POST /domains.',
    });
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM domains WHERE name = 'nobody.test'`))[0].n, 0);
  });

  it("answers 404 for unknown ids, ordinary domains and another account's claims; 422 for a malformed id", async () => {
    const id = crypto.randomUUID();
    for (const { error } of [await t.resend.domains.claims.get(id), await t.resend.domains.claims.verify(id)]) {
      assert.deepEqual(error, { statusCode: 404, name: 'not_found', message: 'Domain claim not found' });
    }
    for (const { error } of [await t.resend.domains.claims.get('nope'), await t.resend.domains.claims.verify('nope')]) {
      assert.deepEqual(error, { statusCode: 422, name: 'validation_error', message: 'The `id` must be a valid UUID.' });
    }
    const ordinary = (await t.resend.domains.create({ name: 'ordinary.test' })).data!;
    assert.equal((await t.resend.domains.claims.get(ordinary.id)).error?.statusCode, 404);

    await holder.domains.create({ name: 'private-claim.test' });
    const mine = (await t.resend.domains.claims.create({ name: 'private-claim.test' })).data!;
    const stranger = new Resend((await createAccount(t.postline.db, 'stranger')).token, { baseUrl: t.url });
    for (const other of [holder, stranger]) {
      assert.equal((await other.domains.claims.get(mine.domain_id!)).error?.name, 'not_found');
      assert.equal((await other.domains.claims.verify(mine.domain_id!)).error?.name, 'not_found');
      assert.equal((await other.domains.get(mine.domain_id!)).error?.name, 'not_found');
    }
    // The holder cannot take a claim's placeholder for a claim of its own domain back.
    assert.equal((await holder.domains.claims.create({ name: 'private-claim.test' })).error?.statusCode, 403);
  });

  it('refuses malformed bodies with Resend errors', async () => {
    await holder.domains.create({ name: 'malformed.test' });
    const cases: [unknown, number, string][] = [
      [{}, 422, 'missing_required_field'],
      [{ name: 42 }, 422, 'validation_error'],
      [{ name: 'not a domain' }, 422, 'validation_error'],
      [{ name: 'malformed.test', region: 'mars-1' }, 422, 'invalid_region'],
      [{ name: 'malformed.test', open_tracking: 'yes' }, 422, 'validation_error'],
      [{ name: 'malformed.test', tls: 'enforced' }, 422, 'validation_error'],
      [{ name: 'malformed.test', custom_return_path: 'two.labels' }, 422, 'validation_error'],
      [['malformed.test'], 422, 'validation_error'],
    ];
    for (const [body, status, name] of cases) {
      const res = await rawRequest(t, 'POST', '/domains/claim', { body: body as object });
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(res.body.name, name, JSON.stringify(body));
      assert.equal(res.body.statusCode, status);
      assert.equal(typeof res.body.message, 'string');
    }
    const notJson = await rawRequest(t, 'POST', '/domains/claim', { body: '{"name":' });
    assert.equal(notJson.status, 400);
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM domains WHERE name = 'malformed.test'`))[0].n, 1);
    assert.equal((await t.sql('SELECT count(*)::int AS n FROM domain_claims WHERE name = $1', ['malformed.test']))[0].n, 0);
  });
  it('refuses a send whose domain moves away while it commits as not verified (403), storing nothing', async () => {
    const held = await createVerifiedDomain({ dns: t.dns, resend: holder }, 'racing.test');
    // The transfer's commit, placed exactly: a session of our own holds the holder's domain row,
    // so the send's insert waits on it, and deletes it as claim-transfer.ts does.
    const transfer = new pg.Client({ connectionString: t.postline.databaseUrl });
    await transfer.connect();
    try {
      await transfer.query('BEGIN');
      await transfer.query('SELECT 1 FROM domains WHERE id = $1 FOR UPDATE', [held.id]);
      const send = holder.emails.send({ from: 'hello@racing.test', to: 'ann@example.org', subject: 'Racing the claim', text: 'x' });
      await eventually(
        async () =>
          (await t.sql(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO emails%'`))
            .length > 0,
        10_000,
        'the send waiting on the domain row',
      );
      await transfer.query('DELETE FROM domains WHERE id = $1', [held.id]);
      await transfer.query('COMMIT');
      const { data, error } = await send;
      assert.equal(data, null);
      assert.deepEqual(error, {
        statusCode: 403,
        name: 'validation_error',
        message: 'The `racing.test` domain is not verified. Please, add and verify your domain.',
      });
    } finally {
      await transfer.end();
    }
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM emails WHERE subject = 'Racing the claim'`))[0].n, 0);
  });
});
