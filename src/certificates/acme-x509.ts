// The two X.509 structures an ACME order needs from us, written as DER with node's crypto: the
// certificate signing request sent at finalization (RFC 2986; RFC 8555 §7.4) and the
// self-signed certificate a tls-alpn-01 responder presents (RFC 8737 §3). acme-client has both,
// through @peculiar/x509, but that library keeps its ASN.1 schemas per installed copy, and
// beside mailauth's pinned copy npm installs several: encoding then fails ("Cannot get schema
// for 'CertificationRequestInfo'"). The structures are small, as smtp/self-signed.ts found for
// its certificate (both write DER with der.ts); the tests check them against a real CA (Pebble)
// that parses both.
import crypto from 'node:crypto';
import { commonName, der, ECDSA_SHA256, explicit, integer, octetString, oid, pem, sequence, set, signed, subjectAltName, time } from './der.js';

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
    explicit(0, integer(Buffer.from([2]))), // [0] EXPLICIT version: v3
    integer(crypto.randomBytes(16)),
    ECDSA_SHA256,
    commonName(hostname),
    sequence(time(new Date(now.getTime() - 86_400_000)), time(new Date(now.getTime() + 7 * 86_400_000))),
    commonName(hostname),
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, sequence(subjectAltName([hostname]), acmeIdentifier)), // [3] EXPLICIT extensions
  );
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), cert: pem('CERTIFICATE', signed(tbs, privateKey)) };
}
