// A self-signed X.509 certificate for the SMTP listeners when the operator gives none
// (POSTLINE_TLS_CERT/KEY). Node has no certificate generation, and the structure is small:
// the DER below is RFC 5280's Certificate with a P-256 key, signed with ECDSA-SHA256, the
// host name as CN and subjectAltName. Checked by parsing it back (crypto.X509Certificate) and
// by TLS handshakes in test/smtp/.
import crypto from 'node:crypto';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One DER element: tag, length, contents. */
function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

const sequence = (...parts: Buffer[]) => der(0x30, ...parts);
const set = (...parts: Buffer[]) => der(0x31, ...parts);
const explicit = (n: number, ...parts: Buffer[]) => der(0xa0 + n, ...parts);

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number) as [number, number, ...number[]];
  const bytes = [40 * first + second];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

/** A non-negative INTEGER from big-endian bytes. */
function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && !(b[1]! & 0x80)) b = b.subarray(1);
  return der(0x02, b[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
function time(date: Date): Buffer {
  const digits = `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
  return date.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(digits.slice(2))) : der(0x18, Buffer.from(digits));
}

const name = (commonName: string) => sequence(set(sequence(oid('2.5.4.3'), der(0x0c, Buffer.from(commonName, 'utf8')))));
const ECDSA_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));
const YEAR_MS = 365 * 86_400_000;

export interface KeyPair {
  key: string;
  cert: string;
}

/** A new P-256 key and a certificate for `hostname`, valid from yesterday for ten years. */
export function selfSignedCertificate(hostname: string, now = new Date()): KeyPair {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const extensions = sequence(
    sequence(oid('2.5.29.17'), der(0x04, sequence(der(0x82, Buffer.from(hostname, 'ascii'))))), // subjectAltName dNSName
    sequence(oid('2.5.29.19'), der(0x04, sequence())), // basicConstraints: not a CA
  );
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(crypto.randomBytes(16)),
    ECDSA_SHA256,
    name(hostname),
    sequence(time(new Date(now.getTime() - 86_400_000)), time(new Date(now.getTime() + 10 * YEAR_MS))),
    name(hostname),
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, extensions),
  );
  const signature = crypto.sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, ECDSA_SHA256, der(0x03, Buffer.from([0]), signature));
  const pem = certificate.toString('base64').replace(/.{1,64}/g, '$&\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    cert: `-----BEGIN CERTIFICATE-----\n${pem}-----END CERTIFICATE-----\n`,
  };
}
