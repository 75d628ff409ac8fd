// POSTLINE_ACME_CHALLENGE=tls-alpn-01, for an operator whose firewall opens 443 to the CA and
// not 80: a Postline against a real Pebble on loopback, with Pebble's http-01 port closed,
// obtains the SMTP host name's certificate by a TLS handshake on POSTLINE_ACME_TLS_PORT
// (answered from the database, so any node would do), presents it on STARTTLS, and leaves no
// challenge behind; that port shows nothing to a client that is not the CA during a challenge.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.js';
import { startPebble, type TestPebble } from '../support/pebble.js';
import { freePort } from '../support/processes.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { restartWithAcme, starttlsSession } from '../support/acme-postline.js';

const HOST = 'mta.postline.test';

describe("the SMTP listeners' certificate by tls-alpn-01", () => {
  let t: TestPostline;
  let pebble: TestPebble;
  let root: string;
  let removeCaFile: (() => void) | undefined;
  let tlsPort: number;

  /** The certificate a STARTTLS session trusting only Pebble's root was shown. */
  const presented = async () => {
    const { conn, certificate } = await starttlsSession(t, root, HOST);
    conn.quit();
    return certificate;
  };

  /** A handshake on the challenge port as the CA makes it (ALPN acme-tls/1), or the error it ends in. */
  const handshake = (servername: string, ALPNProtocols = ['acme-tls/1']) =>
    new Promise<tls.TLSSocket | Error>((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port: tlsPort, servername, ALPNProtocols, rejectUnauthorized: false }, () => resolve(socket));
      socket.on('error', resolve);
    });

  before(async () => {
    tlsPort = await freePort();
    t = await startTestPostline({ env: { POSTLINE_SMTP_PORTS: '0' } });
    t.dns.set(HOST, { A: ['127.0.0.1'] });
    // Nothing listens on the http-01 port: only tls-alpn-01 can succeed.
    pebble = await startPebble({ dnsServer: t.dns.address, httpPort: await freePort(), tlsPort });
    root = await pebble.rootCertificate();
    removeCaFile = await restartWithAcme(t, pebble, { POSTLINE_ACME_CHALLENGE: 'tls-alpn-01', POSTLINE_ACME_TLS_PORT: String(tlsPort) });
  });
  after(async () => {
    await t?.stop();
    await pebble?.stop();
    removeCaFile?.();
  });

  it('obtains the certificate through the TLS port alone and presents it on STARTTLS', async () => {
    let certificate: crypto.X509Certificate | undefined;
    await eventually(
      async () => {
        certificate = await presented().catch(() => undefined);
        return certificate !== undefined;
      },
      30_000,
      "a STARTTLS session trusting only Pebble's root",
    );
    assert.equal(certificate!.checkHost(HOST), HOST);
    const [row] = await t.sql('SELECT failures, last_error FROM tls_certificates WHERE hostname = $1', [HOST]);
    assert.deepEqual(row, { failures: 0, last_error: null });
    assert.deepEqual(await t.sql('SELECT token FROM acme_challenges'), [], 'the challenge is removed once the CA has looked');
  });

  it('answers a handshake with a challenge certificate only for a challenge in flight, and only with ALPN acme-tls/1', async () => {
    const none = await handshake(HOST);
    assert.ok(none instanceof Error, 'no challenge in flight: no certificate');
    const keyAuthorization = 'token-1.thumbprint';
    await t.sql(
      `INSERT INTO acme_challenges (token, type, hostname, key_authorization, expires_at) VALUES ('token-1', 'tls-alpn-01', $1, $2, now() + interval '1 minute')`,
      [HOST, keyAuthorization],
    );
    const answered = await handshake(HOST);
    assert.ok(!(answered instanceof Error), String(answered));
    assert.equal(answered.alpnProtocol, 'acme-tls/1');
    const certificate = answered.getPeerX509Certificate()!;
    answered.destroy();
    assert.equal(certificate.checkHost(HOST), HOST);
    // RFC 8737 §3: the acmeIdentifier extension (1.3.6.1.5.5.7.1.31) holds SHA-256 of the key authorization.
    const digest = crypto.createHash('sha256').update(keyAuthorization).digest();
    assert.ok(certificate.raw.includes(Buffer.concat([Buffer.from([0x04, 0x20]), digest])), 'the key authorization digest');
    const browser = await handshake(HOST, ['http/1.1']);
    assert.ok(browser instanceof Error, 'no protocol in common with anyone but a CA');
    const otherName = await handshake('other.postline.test');
    assert.ok(otherName instanceof Error, 'no challenge for another name');
    await t.sql(`DELETE FROM acme_challenges WHERE token = 'token-1'`);
  });
});
