// Fetching an MTA-STS policy (RFC 8461 §3.3) from real HTTPS servers on port 443 of a loopback
// address of their own (127.0.0.X, so two test files running at once never collide), the name
// mta-sts.dest.test resolved to it by the lookup the caller passes, as delivery passes its DNS
// client's. Certificates come from the test CA (test/support/test-ca.ts), trusted the way an
// operator's private CA is: through NODE_EXTRA_CA_CERTS, which scripts/test.mjs sets.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import { afterEach, before, describe, it } from 'node:test';
import { fetchStsPolicy } from '../../src/tls-policy/mta-sts.js';
import { type IssuedCertificate, issueCertificate, TEST_CA_CERT } from '../support/test-ca.js';

const DOMAIN = 'dest.test';
const HOST = 'mta-sts.dest.test';
const ENFORCE = 'version: STSv1\r\nmode: enforce\r\nmx: mx1.dest.test\r\nmx: *.mx.dest.test\r\nmax_age: 604800\r\n';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** Servers and timers of the running test, closed after it whatever happened. */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** Listens on port 443 of a random loopback address 127.0.0.2–250, another one while taken. */
async function listenOnPort443(server: net.Server): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const address = `127.0.0.${2 + Math.floor(Math.random() * 249)}`;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(443, address, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return address;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 50) throw err;
    }
  }
}

/** An HTTPS policy host presenting `certificate`; its lookup answers with its address. */
async function policyHost(certificate: IssuedCertificate, handler: Handler) {
  const server = https.createServer({ key: certificate.key, cert: certificate.chain }, handler);
  const address = await listenOnPort443(server);
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const asked: string[] = [];
  const lookup = async (host: string) => {
    asked.push(host);
    return [address];
  };
  return { address, lookup, asked };
}

const servePolicy =
  (text: string, contentType = 'text/plain'): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': contentType });
    response.end(text);
  };

describe('tls-policy: fetching the MTA-STS policy over HTTPS', () => {
  let trusted: IssuedCertificate;
  let selfSigned: IssuedCertificate;
  let otherName: IssuedCertificate;

  before(() => {
    // Read at process start: setting it here would be too late, so a run without it fails.
    const extraCa = process.env.NODE_EXTRA_CA_CERTS;
    assert.equal(
      extraCa && path.resolve(extraCa),
      TEST_CA_CERT,
      'NODE_EXTRA_CA_CERTS must name test/fixtures/test-ca/ca.pem (npm test sets it; by hand: NODE_EXTRA_CA_CERTS=test/fixtures/test-ca/ca.pem node --import tsx --test …)',
    );
    trusted = issueCertificate([HOST]);
    selfSigned = issueCertificate([HOST], { selfSigned: true });
    otherName = issueCertificate(['mta-sts.other.test']);
  });

  it('fetches an enforce policy from the well-known path, resolving and verifying the name mta-sts.<domain>', async () => {
    let seen: { method?: string; url?: string; host?: string; servername?: string | false } = {};
    const host = await policyHost(trusted, (request, response) => {
      seen = { method: request.method, url: request.url, host: request.headers.host, servername: (request.socket as any).servername };
      servePolicy(ENFORCE)(request, response);
    });
    const result = await fetchStsPolicy('Dest.Test.', { lookup: host.lookup });
    assert.deepEqual(result, { ok: true, policy: { mode: 'enforce', mx: ['mx1.dest.test', '*.mx.dest.test'], maxAge: 604800 }, text: ENFORCE });
    assert.deepEqual(host.asked, [HOST]);
    assert.deepEqual(seen, { method: 'GET', url: '/.well-known/mta-sts.txt', host: HOST, servername: HOST });
  });

  it('fetches a testing policy with LF line ends and a charset parameter', async () => {
    const text = 'version: STSv1\nmode: testing\nmx: mx1.dest.test\nmax_age: 86400\n';
    const host = await policyHost(trusted, servePolicy(text, 'Text/Plain; charset=utf-8'));
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: host.lookup }), {
      ok: true,
      policy: { mode: 'testing', mx: ['mx1.dest.test'], maxAge: 86400 },
      text,
    });
  });

  it('fetches a none policy, which needs no mx', async () => {
    const text = 'version: STSv1\r\nmode: none\r\nmax_age: 86400\r\n';
    const host = await policyHost(trusted, servePolicy(text));
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: host.lookup }), { ok: true, policy: { mode: 'none', mx: [], maxAge: 86400 }, text });
  });

  it('refuses a policy with a field missing or a bad max_age, naming it', async () => {
    const missing = await policyHost(trusted, servePolicy('version: STSv1\r\nmode: enforce\r\nmx: mx1.dest.test\r\n'));
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: missing.lookup }), { ok: false, error: `${HOST}: policy has no max_age` });
    const badMaxAge = await policyHost(trusted, servePolicy('version: STSv1\r\nmode: enforce\r\nmx: mx1.dest.test\r\nmax_age: 1 week\r\n'));
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: badMaxAge.lookup }), {
      ok: false,
      error: `${HOST}: policy max_age "1 week" is not a whole number of seconds`,
    });
  });

  it('refuses a redirect without following it', async () => {
    const paths: string[] = [];
    const host = await policyHost(trusted, (request, response) => {
      paths.push(request.url!);
      if (request.url === '/elsewhere.txt') return servePolicy(ENFORCE)(request, response);
      response.writeHead(301, { location: `https://${HOST}/elsewhere.txt` });
      response.end();
    });
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: host.lookup }), { ok: false, error: `${HOST} answered 301 (redirects are refused)` });
    assert.deepEqual(paths, ['/.well-known/mta-sts.txt']);
  });

  it('refuses any status but 200', async () => {
    const host = await policyHost(trusted, (_request, response) => {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
    });
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: host.lookup }), { ok: false, error: `${HOST} answered 404 (a policy comes only with 200)` });
  });

  it('refuses a policy that is not text/plain', async () => {
    const host = await policyHost(trusted, servePolicy(ENFORCE, 'text/html; charset=utf-8'));
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: host.lookup }), {
      ok: false,
      error: `${HOST} sent "text/html; charset=utf-8" (a policy is text/plain)`,
    });
  });

  it('stops reading a body past the limit and hangs up, the rest unsent', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    let responseClosed!: Promise<unknown>;
    const host = await policyHost(trusted, (_request, response) => {
      responseClosed = once(response, 'close');
      response.writeHead(200, { 'content-type': 'text/plain' });
      // 1 MiB without a Content-Length, a chunk every 10 ms: the fetch must stop on the size it has read.
      const timer = setInterval(() => {
        if (sent >= 1024 * 1024) return (clearInterval(timer), response.end());
        response.write(chunk);
        sent += chunk.length;
      }, 10);
      response.on('close', () => clearInterval(timer));
      cleanups.push(() => clearInterval(timer));
    });
    const result = await fetchStsPolicy(DOMAIN, { lookup: host.lookup });
    assert.deepEqual(result, { ok: false, error: `${HOST}: policy larger than 64 KiB` });
    await responseClosed;
    assert.ok(sent < 1024 * 1024, `the server wrote ${sent} bytes before the fetch hung up`);
  });

  it('refuses a body whose Content-Length is over the limit before reading it', async () => {
    const host = await policyHost(trusted, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(1024 * 1024) });
      response.write('version: STSv1\r\n');
    });
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: host.lookup, maxBytes: 1000 }), {
      ok: false,
      error: `${HOST}: policy larger than 1000 bytes (1048576 bytes announced)`,
    });
  });

  it('cuts off a body that trickles past the deadline', async () => {
    const host = await policyHost(trusted, (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('version: STSv1\r\n');
      const timer = setInterval(() => response.write('x'), 100);
      response.on('close', () => clearInterval(timer));
      cleanups.push(() => clearInterval(timer));
    });
    const started = Date.now();
    const result = await fetchStsPolicy(DOMAIN, { lookup: host.lookup, timeoutMs: 1000 });
    assert.deepEqual(result, { ok: false, error: `${HOST}: timed out after 1 s reading the policy` });
    assert.ok(Date.now() - started < 1800, `took ${Date.now() - started} ms`);
  });

  it('gives up on a host that accepts the connection but never speaks TLS', async () => {
    const silent = net.createServer(() => {});
    await listenOnPort443(silent);
    const address = (silent.address() as net.AddressInfo).address;
    const sockets = new Set<net.Socket>();
    silent.on('connection', (socket) => sockets.add(socket));
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      silent.close();
    });
    const started = Date.now();
    const result = await fetchStsPolicy(DOMAIN, { lookup: async () => [address], timeoutMs: 1000 });
    assert.deepEqual(result, { ok: false, error: `${HOST}: timed out after 1 s during the TLS handshake` });
    assert.ok(Date.now() - started < 1800, `took ${Date.now() - started} ms`);
  });

  it('refuses a self-signed certificate', async () => {
    let asked = false;
    const host = await policyHost(selfSigned, (request, response) => {
      asked = true;
      servePolicy(ENFORCE)(request, response);
    });
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: host.lookup }), {
      ok: false,
      error: `${HOST}: certificate not issued by a trusted authority (DEPTH_ZERO_SELF_SIGNED_CERT)`,
    });
    assert.equal(asked, false, 'no request goes to a host whose certificate failed');
  });

  it('refuses a trusted certificate issued for another name', async () => {
    const host = await policyHost(otherName, servePolicy(ENFORCE));
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: host.lookup }), {
      ok: false,
      error: `${HOST}: certificate not valid for the host (ERR_TLS_CERT_ALTNAME_INVALID)`,
    });
  });

  it('says so when the name does not resolve, the lookup fails or never answers', async () => {
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: async () => [] }), { ok: false, error: `${HOST} has no address` });
    const failing = async (): Promise<string[]> => {
      throw new Error('SERVFAIL');
    };
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: failing }), { ok: false, error: `${HOST}: DNS lookup failed (SERVFAIL)` });
    const silent = () => new Promise<string[]>(() => {});
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: silent, timeoutMs: 300 }), {
      ok: false,
      error: `${HOST}: timed out after 300 ms resolving the host`,
    });
  });

  it('tries the next address when the first refuses', async () => {
    const host = await policyHost(trusted, servePolicy(ENFORCE));
    const probe = net.createServer();
    const closed = await listenOnPort443(probe);
    await new Promise((resolve) => probe.close(resolve));
    const result = await fetchStsPolicy(DOMAIN, { lookup: async () => [closed, host.address] });
    assert.equal(result.ok, true, JSON.stringify(result));
  });

  it('says so when the connection is refused', async () => {
    // An address whose port 443 was free a moment ago and is closed again.
    const probe = net.createServer();
    const address = await listenOnPort443(probe);
    await new Promise((resolve) => probe.close(resolve));
    assert.deepEqual(await fetchStsPolicy(DOMAIN, { lookup: async () => [address] }), { ok: false, error: `${HOST}: connection refused` });
  });
});
