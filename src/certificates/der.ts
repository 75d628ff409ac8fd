// The few DER (X.690) pieces Postline writes X.509 structures with: the SMTP listeners'
// self-signed certificate (smtp/self-signed.ts), an ACME order's certificate signing request and
// the tls-alpn-01 challenge certificate (acme-x509.ts). Node has no certificate generation, and
// these structures are small; each caller's tests parse the result back (node's X509Certificate,
// TLS handshakes, a real CA).
import crypto from 'node:crypto';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One DER element: tag, length, contents. */
export function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
}

export const sequence = (...parts: Buffer[]) => der(0x30, ...parts);
export const set = (...parts: Buffer[]) => der(0x31, ...parts);
export const explicit = (n: number, ...parts: Buffer[]) => der(0xa0 + n, ...parts);
export const octetString = (bytes: Buffer) => der(0x04, bytes);

export function oid(dotted: string): Buffer {
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
export function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && !(b[1]! & 0x80)) b = b.subarray(1);
  return der(0x02, b[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), b]) : b);
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
export function time(date: Date): Buffer {
  const digits = `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;
  return date.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(digits.slice(2))) : der(0x18, Buffer.from(digits));
}

/** A Name of one commonName (UTF8String). */
export const commonName = (value: string) => sequence(set(sequence(oid('2.5.4.3'), der(0x0c, Buffer.from(value, 'utf8')))));
/** RFC 5280 §4.2.1.6: subjectAltName, each name a dNSName ([2] IA5String). */
export const subjectAltName = (hostnames: string[]) =>
  sequence(oid('2.5.29.17'), octetString(sequence(...hostnames.map((h) => der(0x82, Buffer.from(h, 'ascii'))))));

/** The algorithm a P-256 key signs with, as it stands in a to-be-signed structure. */
export const ECDSA_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));

/** An ECDSA (P-256) signature over `tbs` and the structure around it: { tbs, algorithm, signature BIT STRING }. */
export function signed(tbs: Buffer, key: crypto.KeyObject): Buffer {
  return sequence(tbs, ECDSA_SHA256, der(0x03, Buffer.from([0]), crypto.sign('sha256', tbs, key)));
}

export function pem(label: string, bytes: Buffer): string {
  return `-----BEGIN ${label}-----\n${bytes.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;
}
