// ACME (RFC 8555) against a real CA on loopback: Pebble (test/support/pebble.ts) validates
// http-01 and tls-alpn-01 challenges on the ports of Postline's own responders (answering from a
// map here, from the database in Postline), at the address the test's DNS server gives
// mta.postline.test, and issues certificates from a root of its own.
// What a caller relies on: a certificate for the host that chains to the CA's root, a key pair
// of its own, and an account key it can keep and reuse; and errors that name the step, the host
// and the CA's reason when the CA cannot reach the host, the host does not answer the challenge,
// or the CA itself is not there or not trusted.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { AcmeError, type ChallengeResponder, obtainCertificate, type PublishedChallenge } from '../../src/certificates/acme.js';
import { startHttp01Responder, startTlsAlpn01Responder } from '../../src/certificates/challenge-responders.js';
import { TestDnsServer } from '../support/dns-server.js';
import { closeServer } from '../support/eventually.js';
import { startPebble, type TestPebble } from '../support/pebble.js';

const HOST = 'mta.postline.test';
const UNRESOLVED = 'nowhere.postline.test'; // the DNS server answers NXDOMAIN

/** Completes a TLS handshake to a server presenting `key` and `chain`, trusting only `root`. */
async function handshake(key: string, chain: string, root: string, servername: string): Promise<tls.TLSSocket> {
  const server = tls.createServer({ key, cert: chain }, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as net.AddressInfo;
    return await new Promise<tls.TLSSocket>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, servername, ca: root }, () => resolve(socket));
      socket.on('error', reject);
    });
  } finally {
    await closeServer(server);
  }
}

describe('ACME certificates from a real CA (Pebble)', () => {
  let dns: TestDnsServer;
  let http01: Awaited<ReturnType<typeof startHttp01Responder>>;
  let tlsAlpn01: Awaited<ReturnType<typeof startTlsAlpn01Responder>>;
  let pebble: TestPebble;
  let root: string;
  let accountKey: string;
  // The responders' challenges in flight, as own-certificate.ts keeps them in the database.
  const byToken = new Map<string, PublishedChallenge>();
  const byHost = new Map<string, PublishedChallenge>();
  const published: ChallengeResponder = {
    publish(challenge) {
      byToken.set(challenge.token, challenge);
      if (challenge.type === 'tls-alpn-01') byHost.set(challenge.hostname, challenge);
    },
    unpublish(challenge) {
      byToken.delete(challenge.token);
      if (byHost.get(challenge.hostname) === challenge) byHost.delete(challenge.hostname);
    },
  };

  // Without `accountKey` each order registers a new account: Pebble may reuse an account's earlier
  // proof for a host even at PEBBLE_AUTHZREUSE=0 (1 time in 100), and a test whose challenge must
  // run cannot have one.
  const order = (options: Partial<Parameters<typeof obtainCertificate>[0]> = {}) =>
    obtainCertificate({
      directoryUrl: pebble.directoryUrl,
      ca: pebble.ca,
      email: 'ops@postline.test',
      hostnames: [HOST],
      challenge: 'http-01',
      responder: published,
      timeoutMs: 60_000,
      ...options,
    });

  before(async () => {
    dns = await new TestDnsServer().start();
    dns.set(HOST, { A: ['127.0.0.1'] });
    http01 = await startHttp01Responder({ host: '127.0.0.1', port: 0, keyAuthorization: async (token) => byToken.get(token)?.keyAuthorization });
    tlsAlpn01 = await startTlsAlpn01Responder({ host: '127.0.0.1', port: 0, keyAuthorization: async (hostname) => byHost.get(hostname)?.keyAuthorization });
    pebble = await startPebble({ dnsServer: dns.address, httpPort: http01.port, tlsPort: tlsAlpn01.port });
    root = await pebble.rootCertificate();
  });

  after(async () => {
    await pebble?.stop();
    await http01?.stop();
    await tlsAlpn01?.stop();
    await dns?.stop();
  });

  it('obtains a certificate for the host by http-01 that chains to the CA root, with a new account key', async () => {
    const issued = await order();
    accountKey = issued.accountKey;
    assert.match(accountKey, /^-----BEGIN PRIVATE KEY-----/);
    const chain = issued.cert.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    assert.ok(chain.length >= 2, 'the leaf and an intermediate');
    const leaf = new X509Certificate(chain[0]!);
    assert.equal(leaf.checkHost(HOST), HOST);
    assert.ok(issued.notAfter.getTime() > Date.now());
    assert.equal(issued.notAfter.getTime(), new Date(leaf.validTo).getTime());
    // The chain as a server would present it, verified by OpenSSL against the root alone.
    const socket = await handshake(issued.key, issued.cert, root, HOST);
    assert.equal(socket.authorized, true);
    socket.destroy();
    assert.ok(new X509Certificate(chain[1]!).verify(new X509Certificate(root).publicKey), 'the intermediate is signed by the root');
  });

  it('orders again with the account key it was given, and a new certificate key', async () => {
    const first = await order({ accountKey });
    const second = await order({ accountKey });
    assert.equal(first.accountKey, accountKey);
    assert.equal(second.accountKey, accountKey);
    assert.notEqual(first.key, second.key);
    assert.notEqual(new X509Certificate(first.cert).serialNumber, new X509Certificate(second.cert).serialNumber);
  });

  it('obtains a certificate by tls-alpn-01', async () => {
    const issued = await order({ challenge: 'tls-alpn-01' });
    const socket = await handshake(issued.key, issued.cert, root, HOST);
    assert.equal(socket.authorized, true);
    socket.destroy();
  });

  it('fails at the challenge, naming the host and the CA reason, when the host does not resolve', async () => {
    await assert.rejects(order({ hostnames: [UNRESOLVED] }), (err: unknown) => {
      assert.ok(err instanceof AcmeError, String(err));
      assert.equal(err.step, 'challenge');
      assert.equal(err.hostname, UNRESOLVED);
      assert.match(err.message, new RegExp(`^ACME challenge for ${UNRESOLVED} failed: http-01 challenge: .*${UNRESOLVED}`));
      assert.match(err.message, /could not resolve/);
      return true;
    });
  });

  it('fails at the challenge, naming the host and the 404, when the responder does not serve it', async () => {
    const servesNothing: ChallengeResponder = { publish() {}, unpublish() {} };
    await assert.rejects(order({ responder: servesNothing }), (err: unknown) => {
      assert.ok(err instanceof AcmeError, String(err));
      assert.equal(err.step, 'challenge');
      assert.equal(err.hostname, HOST);
      assert.match(err.message, new RegExp(`^ACME challenge for ${HOST} failed: http-01 challenge: .*404`));
      return true;
    });
  });

  it('names every host that failed when some of an order fail', async () => {
    await assert.rejects(order({ hostnames: [HOST, UNRESOLVED] }), (err: unknown) => {
      assert.ok(err instanceof AcmeError, String(err));
      assert.equal(err.hostname, UNRESOLVED);
      assert.doesNotMatch(err.message, new RegExp(`for ${HOST.replace(/\./g, '\\.')} failed`));
      return true;
    });
  });

  it('gives up at the step that is running when the order runs out of time', async () => {
    const neverPublishes: ChallengeResponder = { publish: () => new Promise(() => {}), unpublish() {} };
    await assert.rejects(order({ responder: neverPublishes, timeoutMs: 1_000 }), (err: unknown) => {
      assert.ok(err instanceof AcmeError, String(err));
      assert.equal(err.message, `ACME challenge for ${HOST} failed: not done within the order's 1000 ms`);
      return true;
    });
  });

  it('fails at the directory, at once, when the CA is not there', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as net.AddressInfo;
    await closeServer(closed);
    const started = Date.now();
    await assert.rejects(order({ directoryUrl: `https://localhost:${port}/dir` }), (err: unknown) => {
      assert.ok(err instanceof AcmeError, String(err));
      assert.equal(err.step, 'directory');
      assert.match(err.message, new RegExp(`^ACME directory failed: https://localhost:${port}/dir: .*ECONNREFUSED`));
      return true;
    });
    assert.ok(Date.now() - started < 5_000, 'no retries for a CA that is not there');
  });

  it('fails at the directory when the CA certificate is not trusted (no ca given)', async () => {
    await assert.rejects(order({ ca: undefined }), (err: unknown) => {
      assert.ok(err instanceof AcmeError, String(err));
      assert.equal(err.step, 'directory');
      assert.match(err.message, /self-signed certificate \(its certificate is not trusted: give its CA\)/);
      return true;
    });
  });

  it('refuses a directory URL that is not https', async () => {
    await assert.rejects(order({ directoryUrl: pebble.directoryUrl.replace('https:', 'http:') }), /ACME directory failed: .* is not an https: URL/);
  });
});
