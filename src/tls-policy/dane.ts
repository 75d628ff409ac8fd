// DANE for SMTP (RFC 7672): whether an MX host's TLS certificate chain matches the TLSA records
// of `_25._tcp.<mx host>`. Pure: the records come from dns/resolver.ts (the caller uses them only
// when the resolver said they are DNSSEC-secure), the chain from the open TLS session.
// - Usable records are DANE-TA(2) and DANE-EE(3) with a known selector and matching type and
//   data of the right length; PKIX-TA(0) and PKIX-EE(1) are unusable for SMTP (§3.1.3).
// - DANE-EE matches the leaf's certificate or key alone: no name, no dates, no chain (§3.1.1).
// - DANE-TA matches a CA certificate the server sent (§3.1.2: servers must include it), above
//   the leaf, as OpenSSL's DANE does; the chain from the leaf up to it must verify, and the leaf
//   must be valid now and name the MX host (§3.2.2, §3.2.3: a wildcard only as a whole label).
// - Records that exist but none usable: TLS stays mandatory, without authentication (§2.2).
// Reasons end up in deferral texts shown to users, so they are short ASCII English.
import { X509Certificate, createHash } from 'node:crypto';
import type { TlsaRecord } from '../dns/resolver.js';

export type { TlsaRecord };

const DANE_TA = 2;
const DANE_EE = 3;
const USAGE_NAMES: Record<number, string> = { 0: 'PKIX-TA', 1: 'PKIX-EE', 2: 'DANE-TA', 3: 'DANE-EE' };
/** Matching type → digest and its length in bytes; 0 (exact) compares the selected bytes themselves. */
const DIGESTS: Record<number, { algorithm: string; length: number; label: string }> = {
  1: { algorithm: 'sha256', length: 32, label: 'SHA-256' },
  2: { algorithm: 'sha512', length: 64, label: 'SHA-512' },
};
/** Hex digits of association data quoted in a reason: enough to tell records apart. */
const HEX_SHOWN = 16;

type DaneVerdict =
  /** A usable record matched: the server is authenticated. */
  | { ok: true; authenticated: true; matched: string }
  /** No usable record: the session must be encrypted, but cannot be authenticated (RFC 7672 §2.2). */
  | { ok: true; authenticated: false; note: string }
  | { ok: false; reason: string };

/** The records DANE for SMTP can authenticate with (RFC 7672 §3.1); the others are ignored. */
export function usableTlsa(records: readonly TlsaRecord[]): TlsaRecord[] {
  return records.filter((record) => {
    if (record.usage !== DANE_TA && record.usage !== DANE_EE) return false;
    if (record.selector !== 0 && record.selector !== 1) return false;
    if (record.matchingType === 0) return record.data.length > 0;
    return DIGESTS[record.matchingType]?.length === record.data.length;
  });
}

/**
 * Whether `chain` (the peer's certificates, leaf first, each with its DER `raw`: node's
 * getPeerCertificate(true) followed by `issuerCertificate`) satisfies the secure TLSA RRset
 * `records` of `mxHost`.
 */
export function daneVerdict(records: readonly TlsaRecord[], chain: readonly { raw: Buffer }[], mxHost: string): DaneVerdict {
  if (records.length === 0) return { ok: true, authenticated: false, note: `${mxHost} has no TLSA records: DANE does not apply` };
  const usable = usableTlsa(records);
  if (usable.length === 0) {
    // RFC 7672 §2.2: a secure TLSA RRset with no usable record still says the server does TLS,
    // so TLS is mandatory; with nothing to check the certificate against, it is not authenticated.
    return { ok: true, authenticated: false, note: `none of the TLSA records of ${mxHost} is usable for SMTP: TLS required, without authentication` };
  }
  if (chain.length === 0) return { ok: false, reason: `${mxHost} presented no certificate (it has TLSA records)` };
  let certs: X509Certificate[];
  try {
    certs = chain.map((cert) => new X509Certificate(cert.raw));
  } catch {
    return { ok: false, reason: `${mxHost} presented a certificate that cannot be parsed` };
  }
  const leaf = certs[0]!;
  const failures: string[] = [];
  for (const record of usable.filter((r) => r.usage === DANE_EE)) {
    if (matches(record, leaf)) return { ok: true, authenticated: true, matched: describe(record) };
    failures.push(`${describe(record)} (${presented(record, leaf)})`);
  }
  for (const record of usable.filter((r) => r.usage === DANE_TA)) {
    const depth = certs.findIndex((cert, i) => i > 0 && matches(record, cert));
    if (depth < 0) {
      failures.push(`${describe(record)} (no CA certificate it sent matches)`);
      continue;
    }
    const problem = chainProblem(certs, depth) ?? nameProblem(leaf, mxHost);
    if (!problem) return { ok: true, authenticated: true, matched: `${describe(record)} (${certs[depth]!.subject.replace(/\n/g, ', ')})` };
    failures.push(`${describe(record)} (${problem})`);
  }
  return { ok: false, reason: `no TLSA record of ${mxHost} matches the certificate it presented: ${failures.join('; ')}` };
}

function selected(record: TlsaRecord, cert: X509Certificate): Buffer {
  return record.selector === 0 ? cert.raw : cert.publicKey.export({ type: 'spki', format: 'der' });
}

function associationData(record: TlsaRecord, cert: X509Certificate): Buffer {
  const bytes = selected(record, cert);
  const digest = DIGESTS[record.matchingType];
  return digest ? createHash(digest.algorithm).update(bytes).digest() : bytes;
}

function matches(record: TlsaRecord, cert: X509Certificate): boolean {
  return associationData(record, cert).equals(record.data);
}

/** `DANE-EE 3 1 1 0a1b2c3d4e5f6071...`, as the record reads in a zone file, its data shortened. */
function describe(record: TlsaRecord): string {
  const hex = record.data.toString('hex');
  const data = hex.length > HEX_SHOWN ? `${hex.slice(0, HEX_SHOWN)}...` : hex;
  return `${USAGE_NAMES[record.usage] ?? `usage ${record.usage}`} ${record.usage} ${record.selector} ${record.matchingType} ${data}`;
}

/** What the leaf offers in place of the record's data: "its key's SHA-256 is 9f86d081884c7d65...". */
function presented(record: TlsaRecord, leaf: X509Certificate): string {
  const what = record.selector === 0 ? "its certificate's" : "its key's";
  const digest = DIGESTS[record.matchingType];
  if (!digest) return `${what.replace(/'s$/, '')} differs`;
  return `${what} ${digest.label} is ${associationData(record, leaf).toString('hex').slice(0, HEX_SHOWN)}...`;
}

/** Why the chain from the leaf up to the trust anchor at `depth` does not hold, or null when it does. */
function chainProblem(certs: X509Certificate[], depth: number): string | null {
  const now = Date.now();
  for (let i = 0; i < depth; i++) {
    const cert = certs[i]!;
    const issuer = certs[i + 1]!;
    if (!issuer.ca || !cert.checkIssued(issuer) || !cert.verify(issuer.publicKey)) {
      return `the chain it sent does not lead from ${i === 0 ? 'its certificate' : cert.subject.replace(/\n/g, ', ')} to that CA`;
    }
    // The trust anchor's own dates are not checked (RFC 5280 §6.1.1: an anchor is not a certificate to validate).
    if (Date.parse(cert.validTo) < now) return `${i === 0 ? 'its certificate' : cert.subject.replace(/\n/g, ', ')} expired on ${cert.validTo}`;
    if (Date.parse(cert.validFrom) > now) return `${i === 0 ? 'its certificate' : cert.subject.replace(/\n/g, ', ')} is not valid before ${cert.validFrom}`;
  }
  return null;
}

/** RFC 7672 §3.2.2: the reference identifier is the MX host name; §3.2.3: wildcards only as the whole leftmost label. */
function nameProblem(leaf: X509Certificate, mxHost: string): string | null {
  if (leaf.checkHost(mxHost, { partialWildcards: false })) return null;
  const names = leaf.subjectAltName ?? leaf.subject.replace(/\n/g, ', ');
  return `issued by that CA, but for other names: ${names}`;
}
