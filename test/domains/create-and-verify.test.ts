import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createVerifiedDomain, publishRecords, type PublishedRecord } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('domains: create, verify through DNS, update, delete', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t.stop());

  it('creates a domain with a 2048-bit DKIM key and records that point at this installation', async () => {
    const created = await t.resend.domains.create({ name: 'Example-One.test' });
    assert.equal(created.error, null);
    const d = created.data!;
    assert.equal(d.name, 'example-one.test');
    assert.equal(d.status, 'not_started');
    assert.equal(d.region, 'us-east-1');
    assert.match(d.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/);
    assert.deepEqual(d.capabilities, { sending: 'enabled', receiving: 'disabled' });
    const byKind = Object.fromEntries(d.records.map((r) => [`${r.record}:${r.type}`, r]));
    const dkim = byKind['DKIM:TXT']!;
    assert.equal(dkim.name, 'postline._domainkey');
    const key = crypto.createPublicKey({ key: Buffer.from(dkim.value.replace(/^p=/, ''), 'base64'), format: 'der', type: 'spki' });
    assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);
    assert.deepEqual(
      { name: byKind['SPF:MX']!.name, value: byKind['SPF:MX']!.value, priority: (byKind['SPF:MX'] as { priority?: number }).priority },
      { name: 'send', value: 'mta.postline.test', priority: 10 },
    );
    assert.equal(byKind['SPF:TXT']!.value, 'v=spf1 a:mta.postline.test ~all');
    // DMARC is recommended, not needed to verify: apart from `records`, whose labels the SDK types.
    assert.equal(byKind['DMARC:TXT'], undefined);
    const recommended = (d as unknown as { recommended_records: { record: string; name: string; type: string; value: string }[] }).recommended_records;
    assert.deepEqual(
      recommended.map((r) => [r.record, r.type, r.name, r.value]),
      [['DMARC', 'TXT', '_dmarc', 'v=DMARC1; p=none; rua=mailto:dmarc-reports@send.example-one.test;']],
    );
    assert.ok(d.records.every((r) => r.status === 'not_started' && r.ttl === 'Auto'));
    assert.ok(!d.records.some((r) => r.record === 'Receiving'));
  });

  it('verifies once the records are published, and reports each record', async () => {
    const created = await t.resend.domains.create({ name: 'verify-me.test', capabilities: { receiving: 'enabled' } } as any);
    const records = created.data!.records as PublishedRecord[];
    assert.ok(records.some((r) => r.record === 'Receiving' && r.name === 'verify-me.test' && r.type === 'MX'));

    await t.resend.domains.verify(created.data!.id);
    let got = await t.resend.domains.get(created.data!.id);
    assert.equal(got.data!.status, 'failed');
    assert.ok(got.data!.records.every((r) => r.status === 'failed'));

    publishRecords(
      t,
      'verify-me.test',
      records.filter((r) => r.record === 'DKIM'),
    );
    await t.resend.domains.verify(created.data!.id);
    got = await t.resend.domains.get(created.data!.id);
    assert.equal(got.data!.status, 'partially_verified');

    publishRecords(t, 'verify-me.test', records);
    const verify = await t.resend.domains.verify(created.data!.id);
    assert.deepEqual(verify.data, { object: 'domain', id: created.data!.id });
    got = await t.resend.domains.get(created.data!.id);
    assert.equal(got.data!.object, 'domain');
    assert.equal(got.data!.status, 'verified');
    assert.ok(got.data!.records.every((r) => r.status === 'verified'));

    const events = await t.sql(`SELECT type, data FROM events WHERE data->>'id' = $1 ORDER BY id`, [created.data!.id]);
    assert.deepEqual(
      events.map((e) => e.type),
      ['domain.created', 'domain.updated', 'domain.updated', 'domain.updated'],
    );
    assert.equal(events.at(-1).data.status, 'verified');
    assert.ok(events.at(-1).data.records.some((r: any) => r.record === 'Receiving MX'));
  });

  it('lists, updates and deletes domains', async () => {
    const d = await createVerifiedDomain(t, 'listed.test');
    const list = await t.resend.domains.list();
    assert.equal(list.data!.object, 'list');
    const listed = list.data!.data.find((x) => x.id === d.id)!;
    assert.equal(listed.status, 'verified');
    assert.ok(!('records' in listed));

    const updated = await t.resend.domains.update({ id: d.id, openTracking: true, clickTracking: true, tls: 'enforced' });
    assert.deepEqual(updated.data, { object: 'domain', id: d.id });
    const got = await t.resend.domains.get(d.id);
    assert.equal(got.data!.open_tracking, true);
    assert.equal(got.data!.click_tracking, true);

    const removed = await t.resend.domains.remove(d.id);
    assert.deepEqual(removed.data, { object: 'domain', id: d.id, deleted: true });
    assert.equal((await t.resend.domains.get(d.id)).error?.name, 'not_found');
  });

  it('rejects bad input with Resend errors', async () => {
    const missing = await rawRequest(t, 'POST', '/domains', { body: {} });
    assert.deepEqual(missing.body, { statusCode: 422, message: 'Missing "name" field', name: 'missing_required_field' });
    const badName = await t.resend.domains.create({ name: 'not a domain' });
    assert.equal(badName.error?.statusCode, 422);
    const noDot = await t.resend.domains.create({ name: 'localhost' });
    assert.equal(noDot.error?.name, 'validation_error');
    const region = await t.resend.domains.create({ name: 'region.test', region: 'mars-1' as any });
    assert.equal(region.error?.name, 'invalid_region');
    const unknown = await rawRequest(t, 'POST', '/domains', { body: { name: 'unknown-field.test', dkim: 'x' } });
    assert.equal(unknown.status, 422);
    const wrongType = await rawRequest(t, 'POST', '/domains', { body: { name: 'types.test', open_tracking: 'yes' } });
    assert.equal(wrongType.status, 422);
    await t.resend.domains.create({ name: 'taken.test' });
    const taken = await t.resend.domains.create({ name: 'TAKEN.test' });
    assert.equal(taken.error?.statusCode, 403);
    assert.equal(taken.error?.message, 'The `taken.test` domain has been registered already.');
    const notUuid = await t.resend.domains.get('nope');
    assert.deepEqual(notUuid.error, { statusCode: 422, message: 'The `id` must be a valid UUID.', name: 'validation_error' });
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM domains WHERE name IN ('region.test','unknown-field.test','types.test')`))[0].n, 0);
  });

  it("hides one account's domains from another", async () => {
    const mine = await t.resend.domains.create({ name: 'private.test' });
    const stranger = await createAccount(t.postline.db, 'stranger');
    const other = new Resend(stranger.token, { baseUrl: t.url });
    assert.equal((await other.domains.get(mine.data!.id)).error?.name, 'not_found');
    assert.equal((await other.domains.verify(mine.data!.id)).error?.name, 'not_found');
    assert.equal((await other.domains.remove(mine.data!.id)).error?.name, 'not_found');
    assert.equal((await other.domains.update({ id: mine.data!.id, openTracking: true })).error?.name, 'not_found');
    assert.ok(!(await other.domains.list()).data!.data.some((d) => d.id === mine.data!.id));
  });
});
