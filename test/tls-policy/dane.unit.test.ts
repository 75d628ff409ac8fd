// DANE verdicts (RFC 7672 §3.1) on certificate chains taken from real TLS handshakes on loopback,
// against TLSA data computed by the openssl command, as an operator makes a record: DANE-EE by
// key or certificate digest regardless of names, DANE-TA by the test CA with the name checked,
// and the records DANE for SMTP cannot use.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import tls from 'node:tls';
import { before, describe, it } from 'node:test';
import type { TlsaRecord } from '../../src/dns/resolver.js';
import { daneVerdict, usableTlsa } from '../../src/tls-policy/dane.js';
import { closeServer } from '../support/eventually.js';
import { type IssuedCertificate, issueCertificate, TEST_CA_CERT } from '../support/test-ca.js';

const MX = 'mx.dane.test';

/** The chain a TLS server sending `credentials` presents, leaf first, as node's client reads it. */
async function presentedChain(credentials: IssuedCertificate): Promise<tls.DetailedPeerCertificate[]> {
  const server = tls.createServer({ key: credentials.key, cert: credentials.chain }, (socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as { port: number };
    const socket = tls.connect({ host: '127.0.0.1', port, servername: MX, rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    const chain: tls.DetailedPeerCertificate[] = [];
    for (let cert = socket.getPeerCertificate(true); cert?.raw && !chain.includes(cert); cert = cert.issuerCertificate) chain.push(cert);
    socket.destroy();
    return chain;
  } finally {
    await closeServer(server);
  }
}

/** TLSA association data of a PEM certificate, the way zone operators compute it with openssl. */
function tlsaData(pem: string, selector: 0 | 1, matchingType: 0 | 1 | 2): Buffer {
  const openssl = (args: string[], input: string | Buffer) => execFileSync('openssl', args, { input });
  const selected =
    selector === 0 ? openssl(['x509', '-outform', 'DER'], pem) : openssl(['pkey', '-pubin', '-outform', 'DER'], openssl(['x509', '-pubkey', '-noout'], pem));
  if (matchingType === 0) return selected;
  return createHash(matchingType === 1 ? 'sha256' : 'sha512')
    .update(selected)
    .digest();
}

const record = (usage: number, selector: number, matchingType: number, data: Buffer): TlsaRecord => ({ usage, selector, matchingType, data });

describe('tls-policy: DANE verdicts on real certificate chains', () => {
  const caPem = fs.readFileSync(TEST_CA_CERT, 'utf8');
  let issued: IssuedCertificate;
  let issuedChain: tls.DetailedPeerCertificate[];
  let otherName: IssuedCertificate;
  let otherNameChain: tls.DetailedPeerCertificate[];
  let selfSigned: IssuedCertificate;
  let selfSignedChain: tls.DetailedPeerCertificate[];

  before(async () => {
    issued = issueCertificate([MX]);
    otherName = issueCertificate(['other.test']);
    selfSigned = issueCertificate(['anything.test'], { selfSigned: true });
    [issuedChain, otherNameChain, selfSignedChain] = await Promise.all([presentedChain(issued), presentedChain(otherName), presentedChain(selfSigned)]);
  });
  it('the handshake presents the leaf and then the test CA', () => {
    assert.ok(issuedChain.length >= 2);
    assert.ok(issuedChain[1]!.raw.equals(tlsaData(caPem, 0, 0)));
  });

  it('DANE-EE 3 1 1 matches the key of a self-signed certificate for another name', () => {
    const verdict = daneVerdict([record(3, 1, 1, tlsaData(selfSigned.cert, 1, 1))], selfSignedChain, MX);
    assert.equal(verdict.ok, true);
    assert.ok(verdict.ok && verdict.authenticated && verdict.matched.startsWith('DANE-EE 3 1 1 '));
  });

  it('DANE-EE 3 1 1 of another key fails, the reason naming the record and what was presented', () => {
    const verdict = daneVerdict([record(3, 1, 1, tlsaData(otherName.cert, 1, 1))], issuedChain, MX);
    assert.equal(verdict.ok, false);
    const reason = verdict.ok ? '' : verdict.reason;
    const presented = tlsaData(issued.cert, 1, 1).toString('hex').slice(0, 16);
    assert.match(reason, /^no TLSA record of mx\.dane\.test matches the certificate it presented: DANE-EE 3 1 1 [0-9a-f]{16}\.\.\. \(its key's SHA-256 is /);
    assert.ok(reason.includes(presented), reason);
    assert.match(reason, /^[\x20-\x7e]+$/, 'ASCII only: it goes into SMTP replies');
  });

  it('DANE-EE 3 0 1 matches the whole certificate, 3 1 2 the key by SHA-512', () => {
    for (const [selector, matchingType] of [
      [0, 1],
      [1, 2],
      [0, 0],
    ] as const) {
      const verdict = daneVerdict([record(3, selector, matchingType, tlsaData(issued.cert, selector, matchingType))], issuedChain, MX);
      assert.ok(verdict.ok && verdict.authenticated, `3 ${selector} ${matchingType}: ${JSON.stringify(verdict)}`);
    }
    const wrongCertificate = daneVerdict([record(3, 0, 1, tlsaData(otherName.cert, 0, 1))], issuedChain, MX);
    assert.ok(!wrongCertificate.ok && wrongCertificate.reason.includes("its certificate's SHA-256 is"));
  });

  it('one matching record among several is enough', () => {
    const records = [record(3, 1, 1, tlsaData(otherName.cert, 1, 1)), record(3, 1, 1, tlsaData(issued.cert, 1, 1))];
    assert.ok(daneVerdict(records, issuedChain, MX).ok);
  });

  it('DANE-TA 2 0 1 of the test CA accepts a certificate it issued for the MX host', () => {
    const verdict = daneVerdict([record(2, 0, 1, tlsaData(caPem, 0, 1))], issuedChain, MX);
    assert.ok(verdict.ok && verdict.authenticated, JSON.stringify(verdict));
    assert.ok(verdict.matched.includes('DANE-TA 2 0 1') && verdict.matched.includes('Postline Test CA'), verdict.matched);
    assert.ok(daneVerdict([record(2, 1, 1, tlsaData(caPem, 1, 1))], issuedChain, MX.toUpperCase()).ok, 'names compare without case');
  });

  it('DANE-TA 2 0 1 of the test CA refuses a certificate it issued for another name', () => {
    const verdict = daneVerdict([record(2, 0, 1, tlsaData(caPem, 0, 1))], otherNameChain, MX);
    assert.equal(verdict.ok, false);
    assert.match(verdict.ok ? '' : verdict.reason, /DANE-TA 2 0 1 [0-9a-f]{16}\.\.\. \(issued by that CA, but for other names: DNS:other\.test\)$/);
  });

  it('DANE-TA never matches the leaf itself, nor a CA the server did not send', () => {
    const leafAsAnchor = daneVerdict([record(2, 0, 1, tlsaData(selfSigned.cert, 0, 1))], selfSignedChain, 'anything.test');
    assert.ok(!leafAsAnchor.ok && leafAsAnchor.reason.includes('no CA certificate it sent matches'), JSON.stringify(leafAsAnchor));
    const unknownCa = daneVerdict([record(2, 0, 1, tlsaData(otherName.cert, 0, 1))], issuedChain, MX);
    assert.ok(!unknownCa.ok && unknownCa.reason.includes('no CA certificate it sent matches'));
  });

  it('PKIX-TA and PKIX-EE only: TLS required, nothing to authenticate with (RFC 7672 §2.2, §3.1.3)', () => {
    const records = [record(0, 0, 1, tlsaData(caPem, 0, 1)), record(1, 1, 1, tlsaData(issued.cert, 1, 1))];
    assert.deepEqual(usableTlsa(records), []);
    const verdict = daneVerdict(records, selfSignedChain, MX);
    assert.ok(verdict.ok && !verdict.authenticated, JSON.stringify(verdict));
    assert.match(verdict.note, /none of the TLSA records of mx\.dane\.test is usable/);
  });

  it('records of unknown usage, selector or matching type, or a digest of the wrong length, are unusable', () => {
    const key = tlsaData(issued.cert, 1, 1);
    const unusable = [record(4, 1, 1, key), record(3, 2, 1, key), record(3, 1, 3, key), record(3, 1, 2, key), record(3, 1, 0, Buffer.alloc(0))];
    assert.deepEqual(usableTlsa(unusable), []);
    const verdict = daneVerdict(unusable, issuedChain, MX);
    assert.ok(verdict.ok && !verdict.authenticated);
    const good = record(3, 1, 1, key);
    assert.deepEqual(usableTlsa([...unusable, good]), [good]);
    assert.ok(daneVerdict([...unusable, good], issuedChain, MX).ok);
  });

  it('usable records and no certificate: refused', () => {
    const verdict = daneVerdict([record(3, 1, 1, tlsaData(issued.cert, 1, 1))], [], MX);
    assert.deepEqual(verdict, { ok: false, reason: 'mx.dane.test presented no certificate (it has TLSA records)' });
  });
});
