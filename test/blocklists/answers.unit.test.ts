// What a DNS blocklist is asked and what its answer means (src/blocklists/answers.ts): reversed
// octets and nibbles, and the codes that are refusals to answer, never listings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outcomeOf, queryName } from '../../src/blocklists/answers.js';
import { ownOutboundAddresses } from '../../src/blocklists/own-addresses.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { nonPublicRange } from '../../src/egress/address-ranges.js';

describe('unit: blocklist questions and answers', () => {
  it('asks an IPv4 address by its reversed octets, IPv6 by its reversed nibbles, a domain as itself', () => {
    assert.equal(queryName('ip', '127.0.0.2', 'zen.spamhaus.org'), '2.0.0.127.zen.spamhaus.org');
    assert.equal(queryName('ip', '203.0.113.7', 'bl.test'), '7.113.0.203.bl.test');
    assert.equal(queryName('ip', '::ffff:203.0.113.7', 'bl.test'), '7.113.0.203.bl.test');
    // RFC 5782 §2.4's example.
    assert.equal(queryName('ip', '2001:db8:1:2:3:4:567:89ab', 'ugly.example'), 'b.a.9.8.7.6.5.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.8.b.d.0.1.0.0.2.ugly.example');
    assert.equal(queryName('domain', 'Example.COM.', 'dbl.spamhaus.org'), 'example.com.dbl.spamhaus.org');
  });

  it('reads 127.0.0.0/8 as a listing, nothing as none', () => {
    assert.deepEqual(outcomeOf('bl.test', []), { result: 'not_listed' });
    assert.deepEqual(outcomeOf('zen.spamhaus.org', ['127.0.0.4', '127.0.0.2', '127.0.0.2']), { result: 'listed', codes: ['127.0.0.2', '127.0.0.4'] });
    assert.deepEqual(outcomeOf('dbl.spamhaus.org', ['127.0.1.2']), { result: 'listed', codes: ['127.0.1.2'] });
  });

  it('reads refusals as checks not possible, with the reason: public resolver, blocked query, outside 127/8', () => {
    const publicResolver = outcomeOf('zen.spamhaus.org', ['127.255.255.254']);
    assert.equal(publicResolver.result, 'not_possible');
    assert.match((publicResolver as { reason: string }).reason, /public or open resolver/);
    for (const code of ['127.255.255.252', '127.255.255.253', '127.255.255.255']) {
      assert.equal(outcomeOf('dbl.spamhaus.org', [code]).result, 'not_possible', code);
    }
    assert.equal(outcomeOf('multi.surbl.org', ['127.0.0.1']).result, 'not_possible', "SURBL's blocked query");
    assert.equal(outcomeOf('dbl.spamhaus.org', ['127.0.1.255']).result, 'not_possible', "DBL's IP queries prohibited");
    assert.equal(outcomeOf('bl.test', ['198.51.100.7']).result, 'not_possible', 'a rewritten NXDOMAIN');
    // A listing beside a refusal code still lists, with the listing's codes only.
    assert.deepEqual(outcomeOf('bl.test', ['127.0.0.2', '127.255.255.254']), { result: 'listed', codes: ['127.0.0.2'] });
  });
});

describe('unit: blocklist settings and the addresses watched', () => {
  it('asks the public lists by default, none when a list is set empty, every hour', () => {
    const defaults = loadConfig({});
    assert.deepEqual(defaults.dnsbls, ['zen.spamhaus.org', 'bl.spamcop.net', 'b.barracudacentral.org']);
    assert.deepEqual(defaults.domainBlocklists, ['dbl.spamhaus.org', 'multi.surbl.org']);
    assert.equal(defaults.dnsblIntervalMs, 3_600_000);
    const off = loadConfig({ POSTLINE_DNSBLS: '', POSTLINE_DOMAIN_BLOCKLISTS: ' ' });
    assert.deepEqual([off.dnsbls, off.domainBlocklists], [[], []]);
    const own = loadConfig({ POSTLINE_DNSBLS: 'Zen.Spamhaus.org., bl.test', POSTLINE_DNSBL_INTERVAL: '30m' });
    assert.deepEqual(own.dnsbls, ['zen.spamhaus.org', 'bl.test']);
    assert.equal(own.dnsblIntervalMs, 1_800_000);
    assert.throws(() => loadConfig({ POSTLINE_DNSBLS: 'not a zone' }), ConfigError);
    assert.throws(() => loadConfig({ POSTLINE_DNSBL_INTERVAL: '0' }), ConfigError);
  });

  it("watches POSTLINE_OUTBOUND_IPS as given; unset, only the system's public source addresses", async () => {
    assert.deepEqual(await ownOutboundAddresses(['127.0.0.2', '203.0.113.7']), { addresses: ['127.0.0.2', '203.0.113.7'], skipped: [] });
    // What the system picks depends on the machine: whatever it is, a private one is skipped with why.
    const found = await ownOutboundAddresses([]);
    for (const address of found.addresses) assert.equal(nonPublicRange(address), undefined, address);
    for (const { address, why } of found.skipped) assert.equal(nonPublicRange(address), why, address);
  });
});
