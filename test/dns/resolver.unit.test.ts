// The resolver against a real DNS server on loopback: a lost datagram is asked again, and an
// answer that arrived while the event loop was busy counts even if the deadline passed meanwhile.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DnsResolver, DnsTemporaryError } from '../../src/dns/resolver.js';
import { TestDnsServer } from '../support/dns-server.js';

describe('dns: the resolver survives lost datagrams and a busy event loop', () => {
  let dns: TestDnsServer;
  before(async () => {
    dns = await new TestDnsServer().start();
    dns.set('example.test', { TXT: ['v=spf1 -all'], A: ['192.0.2.1'] });
  });
  after(() => dns.stop());

  it('asks again when the first query goes unanswered', async () => {
    dns.dropNext = 1;
    const before = dns.queries.length;
    assert.deepEqual(await new DnsResolver([dns.address]).txt('example.test'), ['v=spf1 -all']);
    assert.equal(dns.queries.length - before, 2);
  });

  it('reads an answer that waited behind a stalled event loop past the deadline', async () => {
    const lookup = new DnsResolver([dns.address]).addresses('example.test');
    const until = Date.now() + 4_500; // past the 4 s deadline; the answer is already in the socket
    while (Date.now() < until) {
      /* busy */
    }
    assert.deepEqual(await lookup, ['192.0.2.1']);
  });

  it('gives up with a temporary error when nothing answers', async () => {
    dns.dropNext = 3;
    await assert.rejects(new DnsResolver([dns.address]).txt('example.test'), DnsTemporaryError);
    dns.dropNext = 0;
  });
});
