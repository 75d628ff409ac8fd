// Blocklists watched (src/blocklists/), against real DNS on loopback standing in for the lists:
// bl.test lists the outbound address 127.0.0.2 (2.0.0.127.bl.test A 127.0.0.2, with a TXT
// reason), refusing.test answers 127.255.255.254 (Spamhaus' "public resolver" code) and
// dbl.test lists the domain listed.test. A listing shows on the domain pages, in the queue view
// and as postline_blocklist_listed; a refusal is a check not possible, never a listing; a list
// that does not answer keeps the last state; and domain.blocklisted / domain.unblocklisted
// reach a webhook endpoint once per listing that begins or ends, however many rounds run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  aQueries,
  checkOf,
  createVerifiedDomain,
  domainChecks,
  eventually,
  FAST_RETRIES,
  listedGauge,
  LOOPBACK_ENDPOINTS,
  OUTBOUND_IP,
  queueChecks,
  rounds,
  startTestPostline,
  subscribe,
  type TestPostline,
  WebhookReceiver,
} from './support.js';

const LISTED_REASON = 'Listed by bl.test: see https://bl.test/lookup?ip=127.0.0.2';

describe('blocklists: listings of outbound addresses and sending domains', () => {
  let t: TestPostline;
  let receiver: WebhookReceiver;
  let listed: { id: string; name: string };
  let clean: { id: string; name: string };
  /** The blocklist events recorded, by type (the outbox, for counting: webhooks are checked through the receiver). */
  const recorded = async (type: string) => (await t.sql('SELECT data FROM events WHERE type = $1 ORDER BY id', [type])).map((r) => r.data);

  before(async () => {
    t = await startTestPostline({
      env: {
        POSTLINE_DNSBLS: 'bl.test,refusing.test',
        POSTLINE_DOMAIN_BLOCKLISTS: 'dbl.test',
        POSTLINE_DNSBL_INTERVAL: '1s',
        POSTLINE_OUTBOUND_IPS: OUTBOUND_IP,
        ...LOOPBACK_ENDPOINTS,
        ...FAST_RETRIES,
      },
    });
    t.dns.set('2.0.0.127.refusing.test', { A: ['127.255.255.254'] });
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, ['domain.blocklisted', 'domain.unblocklisted']);
    listed = await createVerifiedDomain(t, 'listed.test');
    clean = await createVerifiedDomain(t, 'clean.test');
    // Nothing is listed yet: the rounds find both domains and the address clean.
    await eventually(
      async () => {
        const checks = await domainChecks(t, listed.id);
        return (
          checkOf(checks, 'domain', 'listed.test', 'dbl.test')?.result === 'not_listed' &&
          checkOf(checks, 'ip', OUTBOUND_IP, 'bl.test')?.result === 'not_listed'
        );
      },
      20_000,
      'a first round over the verified domains',
    );
  });
  after(async () => {
    await receiver?.stop();
    await t?.stop();
  });

  it('shows a listed address and a listed domain on the domain pages, in the queue view and in the metrics', async () => {
    t.dns.set('2.0.0.127.bl.test', { A: ['127.0.0.2'], TXT: [LISTED_REASON] });
    t.dns.set('listed.test.dbl.test', { A: ['127.0.1.2'], TXT: ['listed.test sends spam'] });
    const checks = await eventually(
      async () => {
        const c = await domainChecks(t, listed.id);
        return checkOf(c, 'ip', OUTBOUND_IP, 'bl.test')?.listed && checkOf(c, 'domain', 'listed.test', 'dbl.test')?.listed && c;
      },
      20_000,
      'the listings on the domain page',
    );
    const address = checkOf(checks, 'ip', OUTBOUND_IP, 'bl.test');
    assert.equal(address.result, 'listed');
    assert.deepEqual(address.return_codes, ['127.0.0.2']);
    assert.equal(address.reason, LISTED_REASON);
    assert.ok(Date.parse(address.first_listed_at) <= Date.parse(address.checked_at));
    const domain = checkOf(checks, 'domain', 'listed.test', 'dbl.test');
    assert.deepEqual([domain.result, domain.return_codes, domain.reason], ['listed', ['127.0.1.2'], 'listed.test sends spam']);
    // The public-resolver code is no listing: a check not possible, with why.
    const refused = checkOf(checks, 'ip', OUTBOUND_IP, 'refusing.test');
    assert.equal(refused.listed, false);
    assert.equal(refused.result, 'not_possible');
    assert.deepEqual(refused.return_codes, ['127.255.255.254']);
    assert.match(refused.reason, /public or open resolver/);
    assert.equal(refused.first_listed_at, null);
    // Listings first; only this domain's own check beside the address's.
    assert.deepEqual(
      checks.map((c: any) => c.listed),
      [true, true, false],
    );
    assert.equal(checks.filter((c: any) => c.kind === 'domain').length, 1);

    // The other domain is not listed itself, but sends from the listed address.
    const other = await domainChecks(t, clean.id);
    assert.equal(checkOf(other, 'domain', 'clean.test', 'dbl.test').result, 'not_listed');
    assert.equal(checkOf(other, 'ip', OUTBOUND_IP, 'bl.test').listed, true);
    assert.equal(checkOf(other, 'domain', 'listed.test', 'dbl.test'), undefined);

    // The queue view: the outbound addresses' checks only.
    const queue = await queueChecks(t);
    assert.equal(checkOf(queue, 'ip', OUTBOUND_IP, 'bl.test').listed, true);
    assert.equal(checkOf(queue, 'ip', OUTBOUND_IP, 'refusing.test').result, 'not_possible');
    assert.ok(queue.every((c: any) => c.kind === 'ip'));

    // The gauge (read on scrape, at most every 5 s).
    await eventually(async () => (await listedGauge(t, 'ip', OUTBOUND_IP, 'bl.test')) === 1, 20_000, 'the address listed on /metrics');
    assert.equal(await listedGauge(t, 'domain', 'listed.test', 'dbl.test'), 1);
    assert.equal(await listedGauge(t, 'ip', OUTBOUND_IP, 'refusing.test'), 0);
    assert.equal(await listedGauge(t, 'domain', 'clean.test', 'dbl.test'), 0);
  });

  it('fires domain.blocklisted once per listing, for each domain concerned, however many rounds follow', async () => {
    await receiver.waitUntil(() => receiver.payloads('domain.blocklisted').length >= 3, 20_000, 'three domain.blocklisted');
    // Several more rounds, each finding the same listings.
    const after = (await rounds(t)) + 3;
    await eventually(async () => (await rounds(t)) >= after, 20_000, 'three more rounds');
    const events = await recorded('domain.blocklisted');
    assert.equal(events.length, 3, JSON.stringify(events));
    const about = (payloads: any[]) => payloads.map((p) => `${p.name} ${p.blocklist.kind} ${p.blocklist.target} ${p.blocklist.zone}`).sort();
    assert.deepEqual(about(events), ['clean.test ip 127.0.0.2 bl.test', 'listed.test domain listed.test dbl.test', 'listed.test ip 127.0.0.2 bl.test']);
    const delivered = receiver.payloads('domain.blocklisted');
    assert.equal(delivered.length, 3);
    assert.deepEqual(about(delivered.map((p) => p.data)), about(events));
    assert.deepEqual(receiver.rejected, [], 'every webhook verified (standardwebhooks and the SDK)');
    const webhook = delivered.find((p) => p.data.name === 'clean.test');
    assert.equal(webhook.data.id, clean.id);
    assert.equal(webhook.data.blocklist.listed, true);
    assert.equal(webhook.data.blocklist.reason, LISTED_REASON);
    assert.deepEqual(
      webhook.data.listings.map((l: any) => `${l.target} ${l.zone}`),
      ['127.0.0.2 bl.test'],
    );
    assert.equal(receiver.payloads('domain.unblocklisted').length, 0);

    // A domain verified while the address is listed hears of it too, at the next round.
    const late = await createVerifiedDomain(t, 'late.test');
    await receiver.waitUntil(() => receiver.payloads('domain.blocklisted').length >= 4, 20_000, 'domain.blocklisted for a domain verified later');
    const forLate = receiver.payloads('domain.blocklisted').find((p) => p.data.name === 'late.test');
    assert.equal(forLate.data.id, late.id);
    assert.equal(`${forLate.data.blocklist.target} ${forLate.data.blocklist.zone}`, '127.0.0.2 bl.test');
  });

  it('keeps the last state while a list does not answer (time-outs are unknown, not a delisting)', async () => {
    t.dns.dropNext = 1_000_000;
    try {
      const checks = await eventually(
        async () => {
          const c = await domainChecks(t, listed.id);
          return checkOf(c, 'domain', 'listed.test', 'dbl.test')?.result === 'unknown' && c;
        },
        30_000,
        'a round without answers',
      );
      const domain = checkOf(checks, 'domain', 'listed.test', 'dbl.test');
      assert.equal(domain.listed, true);
      assert.match(domain.error, /timed out/);
      assert.deepEqual(domain.return_codes, ['127.0.1.2']);
    } finally {
      t.dns.dropNext = 0;
    }
    await eventually(async () => checkOf(await domainChecks(t, listed.id), 'domain', 'listed.test', 'dbl.test')?.result === 'listed', 20_000, 'answers again');
    assert.equal((await recorded('domain.unblocklisted')).length, 0);
    assert.equal((await recorded('domain.blocklisted')).length, 4);
  });

  it('fires domain.unblocklisted once when a listing ends', async () => {
    const asked = aQueries(t, '2.0.0.127.bl.test');
    t.dns.delete('2.0.0.127.bl.test');
    await receiver.waitUntil(() => receiver.payloads('domain.unblocklisted').length >= 3, 20_000, 'three domain.unblocklisted');
    const after = (await rounds(t)) + 3;
    await eventually(async () => (await rounds(t)) >= after, 20_000, 'three more rounds');
    assert.ok(aQueries(t, '2.0.0.127.bl.test') >= asked + 3, 'the address was asked about again in each round');
    const events = await recorded('domain.unblocklisted');
    assert.deepEqual(events.map((e) => `${e.name} ${e.blocklist.target} ${e.blocklist.zone}`).sort(), [
      'clean.test 127.0.0.2 bl.test',
      'late.test 127.0.0.2 bl.test',
      'listed.test 127.0.0.2 bl.test',
    ]);
    assert.equal((await recorded('domain.blocklisted')).length, 4, 'no listing began again');
    // listed.test is still on dbl.test: its event says so.
    const forListed = receiver.payloads('domain.unblocklisted').find((p) => p.data.name === 'listed.test');
    assert.equal(forListed.data.blocklist.listed, false);
    assert.deepEqual(
      forListed.data.listings.map((l: any) => `${l.target} ${l.zone}`),
      ['listed.test dbl.test'],
    );
    const address = checkOf(await domainChecks(t, listed.id), 'ip', OUTBOUND_IP, 'bl.test');
    assert.deepEqual([address.listed, address.result, address.first_listed_at, address.reason], [false, 'not_listed', null, null]);
    await eventually(async () => (await listedGauge(t, 'ip', OUTBOUND_IP, 'bl.test')) === 0, 20_000, 'the address no longer listed on /metrics');
  });
});
