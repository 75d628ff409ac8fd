// The decision behind every outbound request to a destination a tenant chose (webhook
// endpoints, attachment URLs), without connecting anywhere: which addresses are refused, in
// every spelling, what the operator's setting opens, and that the connection is pinned to
// what was checked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { canonicalAddress, nonPublicRange } from '../../src/egress/address-ranges.js';
import { DestinationPolicy, pinnedLookup, RefusedDestination, UnresolvedDestination } from '../../src/egress/destination-policy.js';

const REFUSED: [string, RegExp][] = [
  // IPv4 special-purpose ranges
  ['0.0.0.0', /unspecified/],
  ['0.1.2.3', /unspecified/],
  ['10.0.0.1', /private/],
  ['10.255.255.255', /private/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['100.127.255.254', /carrier-grade NAT/],
  ['127.0.0.1', /loopback/],
  ['127.255.0.9', /loopback/],
  ['169.254.169.254', /link-local/],
  ['172.16.0.1', /private/],
  ['172.31.255.255', /private/],
  ['192.0.0.8', /reserved/],
  ['192.0.2.1', /reserved/],
  ['192.88.99.1', /reserved/],
  ['192.168.1.1', /private/],
  ['198.18.0.1', /reserved|benchmarking/],
  ['198.51.100.7', /reserved/],
  ['203.0.113.9', /reserved/],
  ['224.0.0.1', /multicast/],
  ['239.255.255.250', /multicast/],
  ['240.0.0.1', /reserved/],
  ['255.255.255.255', /broadcast/],
  // odd spellings of 127.0.0.1 and 169.254.169.254 that the URL parser and node accept
  ['2130706433', /loopback/],
  ['0177.0.0.1', /loopback/],
  ['0x7f.0.0.1', /loopback/],
  ['0x7f000001', /loopback/],
  ['127.1', /loopback/],
  ['017700000001', /loopback/],
  ['0xa9fea9fe', /link-local/],
  ['0', /unspecified/],
  // IPv6
  ['::', /unspecified/],
  ['::1', /loopback/],
  ['[::1]', /loopback/],
  ['0:0:0:0:0:0:0:1', /loopback/],
  ['fe80::1', /link-local/],
  ['febf:ffff::1', /link-local/],
  ['fc00::1', /unique-local/],
  ['fd12:3456:789a::1', /unique-local/],
  ['fec0::1', /site-local/],
  ['ff02::1', /multicast/],
  ['100::1', /reserved/],
  ['2001:db8::1', /reserved/],
  ['3fff::1', /reserved/],
  ['::7f00:1', /reserved/], // IPv4-compatible (deprecated), outside global unicast
  ['4000::1', /reserved/], // not yet allocated: outside 2000::/3
  // IPv4 written inside IPv6: judged by the IPv4 address, or refused whole
  ['::ffff:127.0.0.1', /loopback, IPv4 127\.0\.0\.1 inside IPv6/],
  ['::ffff:7f00:1', /loopback/],
  ['::FFFF:10.0.0.1', /private/],
  ['::ffff:169.254.169.254', /link-local/],
  ['::ffff:0:127.0.0.1', /loopback/], // IPv4-translated (RFC 6145)
  ['64:ff9b::127.0.0.1', /loopback/], // NAT64 well-known prefix
  ['64:ff9b::a9fe:a9fe', /link-local/],
  ['64:ff9b:1::1', /local-use NAT64/],
  ['2002:7f00:1::1', /6to4/],
  ['2002:0808:0808::1', /6to4/],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
  // not an address at all
  ['example.com', /not an IP address/],
  ['', /not an IP address/],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.216.34',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
];

describe('unit: egress address ranges', () => {
  it('refuses every non-public range, in every spelling, and names it', () => {
    for (const [address, label] of REFUSED) {
      const range = nonPublicRange(address);
      assert.ok(range, `${address} must be refused`);
      assert.match(range, label, address);
    }
  });

  it('lets public addresses through, IPv4 inside IPv6 included', () => {
    for (const address of PUBLIC) assert.equal(nonPublicRange(address), undefined, address);
  });

  it('spells every address as node would connect to it', () => {
    assert.equal(canonicalAddress('2130706433'), '127.0.0.1');
    assert.equal(canonicalAddress('0177.0.0.1'), '127.0.0.1');
    assert.equal(canonicalAddress('[::ffff:127.0.0.1]'), '::ffff:7f00:1');
    assert.equal(canonicalAddress('0:0:0:0:0:0:0:1'), '::1');
    assert.equal(canonicalAddress('hooks.example.com'), undefined);
    assert.equal(canonicalAddress('1.2.3.4.example'), undefined);
  });
});

describe('unit: egress destination policy', () => {
  const zone: Record<string, string[]> = {
    'public.example': ['93.184.216.34', '2606:4700:4700::1111'],
    'internal.example': ['10.1.2.3'],
    'mixed.example': ['93.184.216.34', '127.0.0.1'],
    'mapped.example': ['::ffff:127.0.0.1'],
    'empty.example': [],
  };
  const lookups: string[] = [];
  const resolve = async (host: string) => {
    lookups.push(host);
    if (!(host in zone)) throw new Error('NXDOMAIN');
    return zone[host]!;
  };
  const closed = new DestinationPolicy(false, resolve);

  it('refuses literal addresses and localhost without a lookup; leaves names for connection time', () => {
    lookups.length = 0;
    for (const endpoint of [
      'http://127.0.0.1:8080/hook',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]:9/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'https://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://[fd00::1]/',
      'http://localhost:3000/',
      'http://api.localhost./',
    ]) {
      const refused = closed.literalRefusal(new URL(endpoint));
      assert.ok(refused instanceof RefusedDestination, endpoint);
      assert.match(refused.message, /is not a public address \(.+\), and private, loopback and reserved addresses may not be reached/);
    }
    assert.equal(closed.literalRefusal(new URL('https://hooks.example.com/x')), undefined);
    assert.equal(closed.literalRefusal(new URL('http://8.8.8.8/')), undefined);
    assert.deepEqual(lookups, []);
  });

  it('resolves a name and refuses it when any of its addresses is refused', async () => {
    assert.deepEqual(await closed.addresses(new URL('https://public.example/h')), zone['public.example']);
    await assert.rejects(closed.addresses(new URL('http://internal.example/')), {
      name: 'Error',
      message: /^internal\.example resolves to 10\.1\.2\.3, which is not a public address \(private\)/,
    });
    await assert.rejects(closed.addresses(new URL('http://mixed.example/')), /mixed\.example resolves to 127\.0\.0\.1/);
    await assert.rejects(closed.addresses(new URL('http://mapped.example/')), /loopback, IPv4 127\.0\.0\.1 inside IPv6/);
    await assert.rejects(
      closed.addresses(new URL('http://nowhere.example/')),
      (err) => err instanceof UnresolvedDestination && /could not be resolved/.test(err.message),
    );
    await assert.rejects(
      closed.addresses(new URL('http://empty.example/')),
      (err) => err instanceof UnresolvedDestination && /has no address/.test(err.message),
    );
  });

  it('opens everything, or only the ranges the operator lists', async () => {
    const open = new DestinationPolicy(true, resolve);
    assert.equal(open.literalRefusal(new URL('http://127.0.0.1/')), undefined);
    assert.deepEqual(await open.addresses(new URL('http://mixed.example/')), zone['mixed.example']);

    const some = new DestinationPolicy(['10.0.0.0/8', 'fd00::/8'], resolve);
    assert.deepEqual(await some.addresses(new URL('http://internal.example/')), ['10.1.2.3']);
    assert.equal(some.literalRefusal(new URL('http://[::ffff:10.9.8.7]/')), undefined, 'IPv4 inside IPv6 matches the IPv4 range');
    assert.equal(some.literalRefusal(new URL('http://[fd00::5]/')), undefined);
    assert.ok(some.literalRefusal(new URL('http://127.0.0.1/')));
    assert.ok(some.literalRefusal(new URL('http://192.168.0.1/')));
    assert.ok(some.literalRefusal(new URL('http://[fe80::1]/')));
    await assert.rejects(some.addresses(new URL('http://mapped.example/')), RefusedDestination);
  });

  it('pins the connection to the addresses that were checked', async () => {
    const call = (addresses: string[], options: object) =>
      new Promise<unknown[]>((resolve) => (pinnedLookup(addresses) as any)('rebound.example', options, (...args: unknown[]) => resolve(args)));
    const both = ['93.184.216.34', '2606:4700:4700::1111'];
    assert.deepEqual(await call(both, {}), [null, '93.184.216.34', 4]);
    assert.deepEqual(await call(both, { all: true }), [
      null,
      [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700:4700::1111', family: 6 },
      ],
    ]);
    assert.deepEqual(await call(both, { family: 6 }), [null, '2606:4700:4700::1111', 6]);
    const [err] = await call(['2606:4700:4700::1111'], { family: 4 });
    assert.match(String(err), /no IPv4 address/);
  });
});

describe('unit: the operator settings', () => {
  const read = (value: string) => loadConfig({ POSTLINE_WEBHOOK_ALLOW_PRIVATE: value, POSTLINE_ATTACHMENT_FETCH_ALLOW_PRIVATE: value });

  it('are closed by default, and read true, false or CIDR ranges', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.webhookAllowPrivate, false);
    assert.equal(defaults.attachmentFetchAllowPrivate, false);
    assert.equal(read('true').webhookAllowPrivate, true);
    assert.equal(read('off').webhookAllowPrivate, false);
    assert.deepEqual(read('10.0.0.0/8, 192.168.1.5,fd00::/8').webhookAllowPrivate, ['10.0.0.0/8', '192.168.1.5/32', 'fd00::/8']);
    assert.deepEqual(read('127.0.0.0/8').attachmentFetchAllowPrivate, ['127.0.0.0/8']);
  });

  it('stop start-up on a value that is no range, naming the variable', () => {
    for (const bad of ['maybe', '10.0.0.0/33', '10.0.0.0/8,intranet', '0177.0.0.1']) {
      assert.throws(
        () => read(bad),
        (err) => err instanceof ConfigError && /POSTLINE_WEBHOOK_ALLOW_PRIVATE/.test(err.message),
        bad,
      );
    }
  });
});
