// The SMTP listeners' certificate from an ACME CA (POSTLINE_ACME_EMAIL): a Postline against a
// real Pebble on loopback obtains a certificate for POSTLINE_SMTP_HOSTNAME through http-01
// (answered by its own responder from the database), presents it on STARTTLS to a client that
// trusts only Pebble's root, renews it when a third of its life is left (Pebble issues
// 30-second certificates here) without dropping an open session, keeps it sealed in the
// database, and when the CA is down keeps the certificate it has, counting and logging the
// failure.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type SMTPConnection from 'nodemailer/lib/smtp-connection';
import { eventually } from '../support/eventually.js';
import { startPebble, type TestPebble } from '../support/pebble.js';
import { freePort } from '../support/processes.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { restartWithAcme, starttlsSession } from '../support/acme-postline.js';

const HOST = 'mta.postline.test';
const VALIDITY_S = 30;

describe("the SMTP listeners' certificate from an ACME CA", () => {
  let t: TestPostline;
  let pebble: TestPebble;
  let root: string;
  let removeCaFile: (() => void) | undefined;

  const openSession = () => starttlsSession(t, root, HOST);

  before(async () => {
    const httpPort = await freePort();
    // Postline's DNS server answers for Pebble too: the SMTP host name is this machine.
    t = await startTestPostline({ env: { POSTLINE_SMTP_PORTS: '0' } });
    t.dns.set(HOST, { A: ['127.0.0.1'] });
    pebble = await startPebble({ dnsServer: t.dns.address, httpPort, tlsPort: await freePort(), validitySeconds: VALIDITY_S });
    root = await pebble.rootCertificate();
    removeCaFile = await restartWithAcme(t, pebble, { POSTLINE_ACME_HTTP_PORT: String(httpPort) });
  });
  after(async () => {
    await t?.stop();
    await pebble?.stop();
    removeCaFile?.();
  });

  it('obtains a certificate for the SMTP host name and presents it on STARTTLS', async () => {
    let session: Awaited<ReturnType<typeof openSession>> | undefined;
    await eventually(
      async () => {
        session = await openSession().catch(() => undefined);
        return session !== undefined;
      },
      30_000,
      "a STARTTLS session trusting only Pebble's root",
    );
    assert.ok(session!.certificate.checkHost(HOST));
    session!.conn.quit();
    const [row] = await t.sql('SELECT private_key, cert, failures FROM tls_certificates WHERE hostname = $1', [HOST]);
    assert.match(row.private_key, /^plsec1\./, 'the key is sealed');
    assert.equal(row.failures, 0);
    assert.ok((await t.sql('SELECT account_key FROM acme_accounts'))[0].account_key.startsWith('plsec1.'));
  });

  it('renews it when a third of its life is left, while an open session goes on', async () => {
    const open = await openSession();
    const first = open.certificate.serialNumber;
    await eventually(
      async () => {
        const next = await openSession();
        next.conn.quit();
        return next.certificate.serialNumber !== first;
      },
      (VALIDITY_S + 10) * 1000,
      'a renewed certificate on new sessions',
    );
    // The session opened before the renewal still carries mail.
    const info = await new Promise<SMTPConnection.SentMessageInfo>((resolve, reject) =>
      open.conn.send({ from: 'someone@client.test', to: ['postmaster@postline.test'] }, 'Subject: hi\r\n\r\nstill here\r\n', (err, result) =>
        err && !(err as { responseCode?: number }).responseCode ? reject(err) : resolve(result ?? ({} as SMTPConnection.SentMessageInfo)),
      ),
    );
    void info;
    assert.ok(!open.conn.destroyed, 'the open session was not dropped');
    open.conn.quit();
  });

  it('keeps its certificate when the CA is down, and says so in the log, the database and /metrics', async () => {
    await pebble.stop();
    await eventually(
      async () => (await t.sql('SELECT failures FROM tls_certificates WHERE hostname = $1', [HOST]))[0].failures > 0,
      (VALIDITY_S + 10) * 1000,
      'a failed renewal recorded',
    );
    const [row] = await t.sql('SELECT last_error, next_attempt_at FROM tls_certificates WHERE hostname = $1', [HOST]);
    assert.match(row.last_error, /ACME directory failed/);
    assert.ok(row.next_attempt_at.getTime() > Date.now() + 30_000, 'tried again after a back-off');
    const session = await openSession().catch((err: Error) => err);
    // The certificate it has may have ended by now (30-second certificates): it is still the one presented.
    if (!(session instanceof Error)) session.conn.quit();
    else assert.match(session.message, /expired/);
    const metrics = await rawRequest(t, 'GET', '/metrics', { auth: null });
    assert.match(String(metrics.body), /^postline_acme_failures_total [1-9]/m);
    assert.match(String(metrics.body), /^postline_tls_certificate_expiry_timestamp_seconds \d/m);
  });
});
