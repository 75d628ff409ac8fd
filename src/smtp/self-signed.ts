// A self-signed X.509 certificate for the SMTP listeners when the operator gives none
// (POSTLINE_TLS_CERT/KEY). Node has no certificate generation, and the structure is small:
// RFC 5280's Certificate with a P-256 key, signed with ECDSA-SHA256, the host name as CN and
// subjectAltName, written as DER with certificates/der.ts. Checked by parsing it back (crypto.X509Certificate) and
// by TLS handshakes in test/smtp/.
import crypto from 'node:crypto';
import { commonName, ECDSA_SHA256, explicit, integer, octetString, oid, pem, sequence, signed, subjectAltName, time } from '../certificates/der.js';

const YEAR_MS = 365 * 86_400_000;

export interface KeyPair {
  key: string;
  cert: string;
}

/** A new P-256 key and a certificate for `hostname`, valid from yesterday for ten years. */
export function selfSignedCertificate(hostname: string, now = new Date()): KeyPair {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const extensions = sequence(
    subjectAltName([hostname]),
    sequence(oid('2.5.29.19'), octetString(sequence())), // basicConstraints: not a CA
  );
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(crypto.randomBytes(16)),
    ECDSA_SHA256,
    commonName(hostname),
    sequence(time(new Date(now.getTime() - 86_400_000)), time(new Date(now.getTime() + 10 * YEAR_MS))),
    commonName(hostname),
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, cert: pem('CERTIFICATE', signed(tbs, privateKey)) };
}
