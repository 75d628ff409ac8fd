// The two X.509 structures an ACME order needs from us, written as DER with node's crypto: the
// certificate signing request sent at finalization (RFC 2986; RFC 8555 §7.4) and the
// self-signed certificate a tls-alpn-01 responder presents (RFC 8737 §3). acme-client has both,
// through @peculiar/x509, but that library keeps its ASN.1 schemas per installed copy, and
// beside mailauth's pinned copy npm installs several: encoding then fails ("Cannot get schema
// for 'CertificationRequestInfo'"). The structures are small, as smtp/self-signed.ts found for
// its certificate; the tests check them against a real CA (Pebble) that parses both.
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
const octetString = (bytes: Buffer) => der(0x04, bytes);
const bitString = (bytes: Buffer) => der(0x03, Buffer.from([0]), bytes);

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

/** UTCTime: the challenge certificate lives for days, well before 2050 (RFC 5280 §4.1.2.5). */
const utcTime = (date: Date) => der(0x17, Buffer.from(`${date.toISOString().replace(/[-:T]/g, '').slice(2, 14)}Z`));

const ECDSA_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));
const commonName = (value: string) => sequence(set(sequence(oid('2.5.4.3'), der(0x0c, Buffer.from(value, 'utf8')))));
/** RFC 5280 §4.2.1.6: subjectAltName, each name a dNSName ([2] IA5String). */
const subjectAltName = (hostnames: string[]) => sequence(oid('2.5.29.17'), octetString(sequence(...hostnames.map((h) => der(0x82, Buffer.from(h, 'ascii'))))));

/** An ECDSA (P-256) signature over `tbs` and the structure around it: { tbs, algorithm, signature }. */
function signed(tbs: Buffer, key: crypto.KeyObject): Buffer {
  return sequence(tbs, ECDSA_SHA256, bitString(crypto.sign('sha256', tbs, key)));
}

function pem(label: string, bytes: Buffer): string {
  return `-----BEGIN ${label}-----\n${bytes.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;
}

/**
 * RFC 2986 §4: a request for `hostnames` (subjectAltName, through the PKCS#9 extensionRequest
 * attribute), signed with `keyPem`, a P-256 key; CN is the first name, as CAs copy it.
 */
export function certificateSigningRequest(keyPem: string, hostnames: string[]): string {
  const privateKey = crypto.createPrivateKey(keyPem);
  const extensionRequest = sequence(oid('1.2.840.113549.1.9.14'), set(sequence(subjectAltName(hostnames))));
  const info = sequence(
    integer(Buffer.from([0])), // v1
    commonName(hostnames[0]!),
    crypto.createPublicKey(privateKey).export({ type: 'spki', format: 'der' }),
    der(0xa0, extensionRequest), // attributes [0] IMPLICIT SET OF Attribute
  );
  return pem('CERTIFICATE REQUEST', signed(info, privateKey));
}

/**
 * RFC 8737 §3: a self-signed certificate naming only `hostname`, with the critical
 * acmeIdentifier extension (id-pe 31) holding the SHA-256 digest of the key authorization.
 */
export function tlsAlpnChallengeCertificate(hostname: string, keyAuthorization: string, now = new Date()): { key: string; cert: string } {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const digest = crypto.createHash('sha256').update(keyAuthorization).digest();
  const acmeIdentifier = sequence(oid('1.3.6.1.5.5.7.1.31'), der(0x01, Buffer.from([0xff])), octetString(octetString(digest)));
  const tbs = sequence(
    der(0xa0, integer(Buffer.from([2]))), // [0] EXPLICIT version: v3
    integer(crypto.randomBytes(16)),
    ECDSA_SHA256,
    commonName(hostname),
    sequence(utcTime(new Date(now.getTime() - 86_400_000)), utcTime(new Date(now.getTime() + 7 * 86_400_000))),
    commonName(hostname),
    publicKey.export({ type: 'spki', format: 'der' }),
    der(0xa3, sequence(subjectAltName([hostname]), acmeIdentifier)), // [3] EXPLICIT extensions
  );
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), cert: pem('CERTIFICATE', signed(tbs, privateKey)) };
}
