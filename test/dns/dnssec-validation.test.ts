// The resolver against a real validating resolver (unbound on loopback, test/support/unbound.ts):
// answers from a signed zone come back secure, denials included; an unsigned zone's come back
// insecure; data altered after signing (bogus) is a temporary failure, never "no records"; TLSA
// records decode to the bytes the zone holds, over UDP and, when too large, over TCP.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DnsResolver, DnsTemporaryError } from '../../src/dns/resolver.js';
import { startValidatingResolver, type ValidatingResolver } from '../support/unbound.js';

const KEY_SHA256 = randomBytes(32);
const CA_SHA512 = randomBytes(64);
/** A whole certificate (3 0 0) too large, with the other records, for a 512-byte UDP answer. */
const BIG_CERTIFICATE = randomBytes(700);

describe('dns: DNSSEC validation status from a validating resolver', () => {
  let unbound: ValidatingResolver;
  let resolver: DnsResolver;

  before(async () => {
    unbound = await startValidatingResolver({
      zones: [
        {
          name: 'dane.test',
          signed: true,
          records: [
            'dane.test. 300 IN MX 10 mx.dane.test.',
            'dane.test. 300 IN MX 20 mx2.dane.test.',
            'mx.dane.test. 300 IN A 127.0.0.1',
            'mx.dane.test. 300 IN AAAA ::1',
            'mx2.dane.test. 300 IN A 127.0.0.2',
            `_25._tcp.mx.dane.test. 300 IN TLSA 3 1 1 ${KEY_SHA256.toString('hex')}`,
            `_25._tcp.mx.dane.test. 300 IN TLSA 2 0 2 ${CA_SHA512.toString('hex')}`,
            `_25._tcp.mx2.dane.test. 300 IN TLSA 3 0 0 ${BIG_CERTIFICATE.toString('hex')}`,
            `_25._tcp.mx2.dane.test. 300 IN TLSA 3 1 1 ${KEY_SHA256.toString('hex')}`,
          ],
        },
        {
          name: 'plain.test',
          signed: false,
          records: [
            'plain.test. 300 IN MX 10 mx.plain.test.',
            'mx.plain.test. 300 IN A 127.0.0.3',
            `_25._tcp.mx.plain.test. 300 IN TLSA 3 1 1 ${KEY_SHA256.toString('hex')}`,
          ],
        },
        {
          name: 'bogus.test',
          signed: true,
          records: [
            'bogus.test. 300 IN MX 10 mx.bogus.test.',
            'mx.bogus.test. 300 IN A 127.0.0.4',
            `_25._tcp.mx.bogus.test. 300 IN TLSA 3 1 1 ${KEY_SHA256.toString('hex')}`,
            'dual.bogus.test. 300 IN A 127.0.0.5',
            'dual.bogus.test. 300 IN AAAA ::5',
          ],
          tamperedAfterSigning: [
            'mx.bogus.test. 300 IN A 192.0.2.66',
            `_25._tcp.mx.bogus.test. 300 IN TLSA 3 1 1 ${randomBytes(32).toString('hex')}`,
            'dual.bogus.test. 300 IN AAAA 2001:db8::66',
          ],
        },
      ],
    });
    resolver = new DnsResolver([unbound.address]);
  });
  after(() => unbound?.stop());

  it('a signed zone: MX, A/AAAA and TLSA answers are secure', async () => {
    assert.deepEqual(await resolver.mxSecure('dane.test'), {
      records: [
        { exchange: 'mx.dane.test', priority: 10 },
        { exchange: 'mx2.dane.test', priority: 20 },
      ],
      secure: true,
    });
    assert.deepEqual(await resolver.addressesSecure('mx.dane.test'), { addresses: ['127.0.0.1', '::1'], secure: true });
    assert.deepEqual(await resolver.addressesSecure('mx2.dane.test'), { addresses: ['127.0.0.2'], secure: true }, 'a proven absence of AAAA is secure too');
    const tlsa = await resolver.tlsa('_25._tcp.mx.dane.test');
    assert.equal(tlsa.secure, true);
    assert.deepEqual(
      tlsa.records.sort((a, b) => a.usage - b.usage),
      [
        { usage: 2, selector: 0, matchingType: 2, data: CA_SHA512 },
        { usage: 3, selector: 1, matchingType: 1, data: KEY_SHA256 },
      ],
    );
  });

  it('the existing lookups answer as before, from the same cached answers', async () => {
    const fresh = new DnsResolver([unbound.address]);
    assert.deepEqual(await fresh.mx('dane.test'), [
      { exchange: 'mx.dane.test', priority: 10 },
      { exchange: 'mx2.dane.test', priority: 20 },
    ]);
    assert.equal((await fresh.mxSecure('dane.test')).secure, true, 'the secure flag is kept with the cached answer');
    assert.deepEqual(await fresh.addresses('mx.dane.test'), ['127.0.0.1', '::1']);
  });

  it('a TLSA answer too large for UDP is asked again over TCP and still decodes, secure', async () => {
    const tlsa = await resolver.tlsa('_25._tcp.mx2.dane.test');
    assert.equal(tlsa.secure, true);
    const exact = tlsa.records.find((r) => r.matchingType === 0);
    assert.ok(exact, 'the 3 0 0 record');
    assert.equal(exact.data.toString('hex'), BIG_CERTIFICATE.toString('hex'));
    assert.equal(tlsa.records.length, 2);
  });

  it('a signed zone: names and records that do not exist are securely denied', async () => {
    assert.deepEqual(await resolver.tlsa('_25._tcp.mx3.dane.test'), { records: [], secure: true });
    assert.deepEqual(await resolver.tlsa('_25._tcp.dane.test'), { records: [], secure: true });
    assert.deepEqual(await resolver.mxSecure('nowhere.dane.test'), { records: null, secure: true });
  });

  it('an unsigned zone: the same answers, insecure', async () => {
    assert.deepEqual(await resolver.mxSecure('plain.test'), { records: [{ exchange: 'mx.plain.test', priority: 10 }], secure: false });
    assert.deepEqual(await resolver.addressesSecure('mx.plain.test'), { addresses: ['127.0.0.3'], secure: false });
    assert.deepEqual(await resolver.tlsa('_25._tcp.mx.plain.test'), { records: [{ usage: 3, selector: 1, matchingType: 1, data: KEY_SHA256 }], secure: false });
    assert.deepEqual(await resolver.tlsa('_25._tcp.nowhere.plain.test'), { records: [], secure: false });
  });

  it('an IP literal is not secure', async () => {
    assert.deepEqual(await resolver.addressesSecure('192.0.2.1'), { addresses: ['192.0.2.1'], secure: false });
  });

  it('bogus records (altered after signing) are a temporary failure, not an absence', async () => {
    assert.equal((await resolver.mxSecure('bogus.test')).secure, true, 'the untouched records of the zone stay secure');
    await assert.rejects(resolver.addressesSecure('mx.bogus.test'), (err) => err instanceof DnsTemporaryError && /SERVFAIL/.test(err.message));
    await assert.rejects(resolver.addresses('mx.bogus.test'), DnsTemporaryError);
    await assert.rejects(
      resolver.tlsa('_25._tcp.mx.bogus.test'),
      (err) => err instanceof DnsTemporaryError && /TLSA _25\._tcp\.mx\.bogus\.test: SERVFAIL/.test(err.message),
    );
  });

  it('a bogus AAAA answer hides the IPv6 addresses and leaves the secure IPv4 ones', async () => {
    assert.deepEqual(await resolver.addressesSecure('dual.bogus.test'), { addresses: ['127.0.0.5'], secure: true });
  });
});
