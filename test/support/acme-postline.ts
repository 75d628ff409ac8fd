// A test Postline that takes its certificates from a Pebble on loopback (test/support/pebble.ts),
// and the certificate its STARTTLS listener presents, as the certificate tests use them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type tls from 'node:tls';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { TestPebble } from './pebble.js';
import type { TestPostline } from './postline.js';

/** Restarts `t` with ACME against `pebble` (its HTTPS trusted through a CA file), plus `env`; returns the removal of that file. */
export async function restartWithAcme(t: TestPostline, pebble: TestPebble, env: Record<string, string>): Promise<() => void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postline-acme-ca-'));
  fs.writeFileSync(path.join(dir, 'pebble.pem'), pebble.ca);
  await t.restart({
    POSTLINE_ACME_EMAIL: 'postmaster@postline.test',
    POSTLINE_ACME_DIRECTORY: pebble.directoryUrl,
    POSTLINE_ACME_CA_FILE: path.join(dir, 'pebble.pem'),
    ...env,
  });
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

/** An open STARTTLS session with `t` that trusts only `ca` for `servername`, and the certificate it was shown. */
export async function starttlsSession(t: TestPostline, ca: string, servername: string) {
  const conn = new SMTPConnection({
    host: '127.0.0.1',
    port: t.postline.smtpPorts.starttls[0]!,
    name: 'client.test',
    requireTLS: true,
    tls: { ca, servername },
    logger: false,
  });
  conn.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    conn.once('error', reject);
    conn.connect(() => resolve());
  });
  const socket = (conn as unknown as { _socket: tls.TLSSocket })._socket;
  return { conn, certificate: new crypto.X509Certificate(socket.getPeerCertificate().raw) };
}
