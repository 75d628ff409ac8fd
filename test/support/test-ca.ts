// A certificate authority for tests only (test/fixtures/test-ca: its key is public, so nothing
// outside the tests trusts it). scripts/test.mjs puts its certificate in NODE_EXTRA_CA_CERTS,
// so a test's Postline trusts it as an operator's Postline trusts a public CA: an HTTPS policy
// host or an MX host presenting a certificate it issued passes PKIX checks, one it did not
// issue (self-signed) fails them. Certificates are issued by the openssl command, as a CA would.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'test-ca');
export const TEST_CA_CERT = path.join(dir, 'ca.pem');
const TEST_CA_KEY = path.join(dir, 'ca.key');

export interface IssuedCertificate {
  key: string;
  /** The leaf certificate (PEM). */
  cert: string;
  /** The leaf followed by the CA's certificate, as a server sends its chain. */
  chain: string;
}

/**
 * A new P-256 key and a certificate for `hostnames` (subjectAltName DNS names), issued by the
 * test CA, or self-signed with `selfSigned` (what no CA vouches for).
 */
export function issueCertificate(hostnames: string[], options: { selfSigned?: boolean; days?: number } = {}): IssuedCertificate {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'postline-test-cert-'));
  try {
    const file = (name: string) => path.join(work, name);
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    fs.writeFileSync(file('ext.cnf'), `subjectAltName=${hostnames.map((h) => `DNS:${h}`).join(',')}\nbasicConstraints=CA:FALSE\n`);
    openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file('leaf.key'));
    openssl('req', '-new', '-key', file('leaf.key'), '-subj', `/CN=${hostnames[0]}`, '-out', file('leaf.csr'));
    const validity = ['-days', String(options.days ?? 30)];
    const signer = options.selfSigned
      ? ['-key', file('leaf.key')]
      : ['-CA', TEST_CA_CERT, '-CAkey', TEST_CA_KEY, '-CAcreateserial', '-CAserial', file('ca.srl')];
    openssl('x509', '-req', '-in', file('leaf.csr'), ...signer, ...validity, '-extfile', file('ext.cnf'), '-out', file('leaf.pem'));
    const cert = fs.readFileSync(file('leaf.pem'), 'utf8');
    const key = fs.readFileSync(file('leaf.key'), 'utf8');
    return { key, cert, chain: options.selfSigned ? cert : cert + fs.readFileSync(TEST_CA_CERT, 'utf8') };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
