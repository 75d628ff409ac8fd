// The resolver against a real DNS server on loopback: an answer too large for a datagram comes
// back truncated and is asked again over TCP; answers are kept for their TTL, reused while
// fresh and asked again once it has passed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DnsResolver } from '../../src/dns/resolver.js';
import { TestDnsServer } from '../support/dns-server.js';
import { eventually } from '../support/eventually.js';

describe('dns: truncated answers are asked again over TCP, and answers live as long as their TTL', () => {
  let dns: TestDnsServer;
  before(async () => {
    dns = await new TestDnsServer().start();
  });
  after(() => dns.stop());

  const queriesFor = (name: string) => dns.queries.filter((q) => q.name === name).map((q) => `${q.type}/${q.transport}`);

  it('reads a TXT answer larger than 512 bytes through TCP after the truncated datagram', async () => {
    const values = Array.from({ length: 6 }, (_, i) => `v=test${i} ${'x'.repeat(150)}`);
    dns.set('big.test', { TXT: values });
    assert.deepEqual((await new DnsResolver([dns.address]).txt('big.test')).sort(), values);
    assert.deepEqual(queriesFor('big.test'), ['TXT/udp', 'TXT/tcp']);
  });

  it('reads a long MX list through TCP, sorted by preference', async () => {
    const hosts = Array.from({ length: 30 }, (_, i) => ({ exchange: `mx${i}.a-rather-long-mail-host-name.many-mx.test`, priority: 30 - i }));
    dns.set('many-mx.test', { MX: hosts });
    const mx = await new DnsResolver([dns.address]).mx('many-mx.test');
    assert.equal(mx?.length, 30);
    assert.deepEqual(mx?.[0], { exchange: 'mx29.a-rather-long-mail-host-name.many-mx.test', priority: 1 });
    assert.deepEqual(queriesFor('many-mx.test'), ['MX/udp', 'MX/tcp']);
  });

  it('answers a small question over UDP alone', async () => {
    dns.set('small.test', { TXT: ['v=spf1 -all'] });
    assert.deepEqual(await new DnsResolver([dns.address]).txt('small.test'), ['v=spf1 -all']);
    assert.deepEqual(queriesFor('small.test'), ['TXT/udp']);
  });

  it('reuses a cached answer while its TTL lasts, even when the zone has changed', async () => {
    dns.ttl = 600;
    dns.set('cached.test', { TXT: ['first'] });
    const resolver = new DnsResolver([dns.address]);
    assert.deepEqual(await resolver.txt('cached.test'), ['first']);
    dns.set('cached.test', { TXT: ['second'] });
    assert.deepEqual(await resolver.txt('cached.test'), ['first']);
    assert.deepEqual(await resolver.txt('CACHED.test'), ['first'], 'names are cached case-insensitively');
    assert.deepEqual(queriesFor('cached.test'), ['TXT/udp']);
    // Domain verification asks the server past the cache.
    assert.deepEqual(await resolver.txt('cached.test', { fresh: true }), ['second']);
    assert.equal(queriesFor('cached.test').length, 2);
  });

  it('asks again once the TTL has passed', async () => {
    dns.ttl = 1;
    dns.set('expiring.test', { TXT: ['old'] });
    const resolver = new DnsResolver([dns.address]);
    const askedAt = Date.now();
    assert.deepEqual(await resolver.txt('expiring.test'), ['old']);
    dns.set('expiring.test', { TXT: ['new'] });
    await eventually(async () => (await resolver.txt('expiring.test'))[0] === 'new', 10_000, 'the expired answer asked again');
    assert.ok(Date.now() - askedAt >= 1_000, 'not before the 1 s TTL');
    // Every lookup while the answer was fresh came from the cache: one query then one more.
    assert.deepEqual(queriesFor('expiring.test'), ['TXT/udp', 'TXT/udp']);
    dns.ttl = 60;
  });
});
