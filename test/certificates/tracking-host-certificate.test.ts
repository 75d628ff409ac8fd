// HTTPS for a domain's own tracking host: once `links.brand.test` (tracking_subdomain) verifies,
// Postline gets its certificate from the ACME CA (a real Pebble on loopback, http-01 answered
// from the database) and serves the domain's tracked links over HTTPS on POSTLINE_HTTPS_PORT,
// presenting that certificate by SNI to a client that trusts only Pebble's root; only tracking
// is served there. The CA's challenge is answered by the API too (GET /.well-known/acme-challenge/…).
import assert from 'node:assert/strict';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { startPebble, type TestPebble } from '../support/pebble.js';
import { freePort } from '../support/processes.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { restartWithAcme } from '../support/acme-postline.js';

const PUBLIC_HOST = 'mail.postline.test';
const TRACKING_HOST = 'links.brand.test';

describe("a tracking host's certificate from the ACME CA", () => {
  let t: TestPostline;
  let pebble: TestPebble;
  let root: string;
  let removeCaFile: (() => void) | undefined;

  /** GET over HTTPS to the tracking listener, as a mail client that trusts only Pebble's root. */
  const httpsGet = (pathname: string) =>
    new Promise<{ status: number; location?: string; issuer: string }>((resolve, reject) => {
      const req = https.get(
        { host: '127.0.0.1', port: t.postline.httpsPort, path: pathname, servername: TRACKING_HOST, headers: { host: TRACKING_HOST }, ca: root, agent: false },
        (res) => {
          res.resume();
          const issuer = String((res.socket as import('node:tls').TLSSocket).getPeerCertificate().issuer?.CN ?? '');
          res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, issuer }));
        },
      );
      req.on('error', reject);
    });

  before(async () => {
    const httpPort = await freePort();
    t = await startTestPostline({ env: { POSTLINE_PUBLIC_URL: `https://${PUBLIC_HOST}` } });
    t.dns.set(PUBLIC_HOST, { A: ['127.0.0.1'] });
    t.dns.set('mta.postline.test', { A: ['127.0.0.1'] }); // the SMTP listeners' certificate is ordered too
    pebble = await startPebble({ dnsServer: t.dns.address, httpPort, tlsPort: await freePort() });
    root = await pebble.rootCertificate();
    removeCaFile = await restartWithAcme(t, pebble, { POSTLINE_ACME_HTTP_PORT: String(httpPort), POSTLINE_HTTPS_PORT: '0' });
    const { id } = await createVerifiedDomain(t, 'brand.test');
    const updated = await t.resend.domains.update({ id, clickTracking: true, trackingSubdomain: 'links' } as any);
    assert.equal(updated.error, null, JSON.stringify(updated.error));
    t.dns.set(TRACKING_HOST, { CNAME: PUBLIC_HOST, A: ['127.0.0.1'] });
    assert.equal((await rawRequest(t, 'POST', `/domains/${id}/verify`)).status, 200);
    t.dns.set('inbox.test', { MX: [{ exchange: 'mx.inbox.test', priority: 10 }] });
    t.dns.set('mx.inbox.test', { A: ['127.0.0.1'] });
  });
  after(async () => {
    await t?.stop();
    await pebble?.stop();
    removeCaFile?.();
  });

  it('serves the tracked links over HTTPS with the certificate the CA issued for the tracking host', async () => {
    const { error } = await t.resend.emails.send({
      from: 'news@brand.test',
      to: 'reader@inbox.test',
      subject: 'Links',
      html: '<a href="https://acme.test/">Go</a>',
    });
    assert.equal(error, null);
    await eventually(async () => t.sink.messages.length > 0, 15_000, 'the email delivered');
    const html = (await PostalMime.parse(t.sink.messages[0]!.raw)).html!.replace(/&amp;/g, '&');
    const click = /<a href="([^"]+)"/.exec(html)![1]!;
    assert.ok(click.startsWith(`https://${TRACKING_HOST}/t/c/`), click);

    let answer: Awaited<ReturnType<typeof httpsGet>> | undefined;
    await eventually(
      async () => {
        answer = await httpsGet(click.slice(`https://${TRACKING_HOST}`.length)).catch(() => undefined);
        return answer !== undefined;
      },
      45_000,
      "an HTTPS answer trusting only Pebble's root",
    );
    assert.equal(answer!.status, 302);
    assert.equal(answer!.location, 'https://acme.test/');
    assert.match(answer!.issuer, /Pebble/i);
    const [row] = await t.sql('SELECT private_key FROM tls_certificates WHERE hostname = $1', [TRACKING_HOST]);
    assert.match(row.private_key, /^plsec1\./);
    // Nothing but tracking there.
    assert.equal((await httpsGet('/domains')).status, 404);
  });

  it('answers an ACME challenge through the API as well (a CA reaching port 80 through a proxy)', async () => {
    assert.equal((await rawRequest(t, 'GET', '/.well-known/acme-challenge/unknown-token', { auth: null })).status, 404);
  });
});
