// The certificate the SMTP ports present: the operator's POSTLINE_TLS_CERT/KEY when given,
// else a self-signed one for POSTLINE_SMTP_HOSTNAME, made once and kept in the data directory
// (the same after a restart).
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { selfSignedCertificate } from '../../src/smtp/self-signed.js';
import { within } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { RawSession, startSmtpTest, starttlsPort } from './support.js';

async function peerCertificate(port: number): Promise<tls.PeerCertificate> {
  const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
  const handshake = new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', () => resolve());
    socket.once('error', reject);
  });
  await within(handshake, 10_000, `the TLS handshake on port ${port}`);
  const certificate = socket.getPeerCertificate();
  socket.destroy();
  return certificate;
}

async function starttlsCertificate(port: number): Promise<tls.PeerCertificate> {
  const session = await RawSession.connect(port);
  await session.reply();
  await session.command('EHLO client.test');
  assert.match(await session.command('STARTTLS'), /^220 /);
  const socket = tls.connect({ socket: (session as any).socket, rejectUnauthorized: false });
  await within(new Promise<void>((resolve) => socket.once('secureConnect', () => resolve())), 10_000, 'the TLS handshake after STARTTLS');
  const certificate = socket.getPeerCertificate();
  socket.destroy();
  return certificate;
}

describe('SMTP TLS certificate', () => {
  describe('without POSTLINE_TLS_CERT', () => {
    let t: TestPostline;
    before(async () => {
      t = await startSmtpTest();
    });
    after(() => t.stop());

    it('presents a self-signed certificate for the SMTP host name, kept across restarts', async () => {
      const first = await peerCertificate(t.postline.smtpPorts.implicit[0]!);
      assert.equal(first.subject.CN, 'mta.postline.test');
      assert.equal(first.subjectaltname, 'DNS:mta.postline.test');
      assert.equal((await starttlsCertificate(starttlsPort(t))).fingerprint256, first.fingerprint256);
      const files = await fs.readdir(path.join(t.postline.config.dataDir, 'tls'));
      assert.deepEqual(files, ['self-signed-mta.postline.test.pem']);
      const stat = await fs.stat(path.join(t.postline.config.dataDir, 'tls', files[0]!));
      assert.equal(stat.mode & 0o777, 0o600);
      await t.restart();
      assert.equal((await peerCertificate(t.postline.smtpPorts.implicit[0]!)).fingerprint256, first.fingerprint256);
    });
  });

  describe('with POSTLINE_TLS_CERT and POSTLINE_TLS_KEY', () => {
    let t: TestPostline;
    let dir: string;
    before(async () => {
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'postline-tls-'));
      const pair = selfSignedCertificate('smtp.operator.test');
      await fs.writeFile(path.join(dir, 'cert.pem'), pair.cert);
      await fs.writeFile(path.join(dir, 'key.pem'), pair.key);
      t = await startSmtpTest({ POSTLINE_TLS_CERT: path.join(dir, 'cert.pem'), POSTLINE_TLS_KEY: path.join(dir, 'key.pem') });
    });
    after(async () => {
      await t.stop();
      await fs.rm(dir, { recursive: true, force: true });
    });

    it("presents the operator's certificate", async () => {
      assert.equal((await peerCertificate(t.postline.smtpPorts.implicit[0]!)).subject.CN, 'smtp.operator.test');
      assert.equal((await starttlsCertificate(starttlsPort(t))).subject.CN, 'smtp.operator.test');
    });
  });
});
