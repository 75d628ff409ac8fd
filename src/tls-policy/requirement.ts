// What a connection to one MX host must prove before a message goes over it, and the check of
// an open session against it. Requirements come from three promises (policy.ts combines them):
// the sending domain's `tls: "enforced"` (encrypted, any certificate: Resend's meaning), the
// recipient domain's MTA-STS policy in enforce mode (a certificate valid for the MX host name
// under the trust store: RFC 8461 §4.2) and its DANE TLSA records (RFC 7672). The strongest one
// applies. Every connection upgrades with STARTTLS when offered and never fails the handshake
// on the certificate (RFC 7435's opportunistic TLS); the requirement is checked on the open
// session, before MAIL FROM, so the reason a host was refused can be told exactly.
import type tls from 'node:tls';
import { daneVerdict, type TlsaRecord } from './dane.js';

/** The result types of a TLS report (RFC 8460 §4.3), for what failed. */
export type TlsFailure =
  | 'starttls-not-supported'
  | 'certificate-host-mismatch'
  | 'certificate-expired'
  | 'certificate-not-trusted'
  | 'validation-failure'
  | 'tlsa-invalid'
  | 'dnssec-invalid'
  | 'sts-policy-fetch-error'
  | 'sts-policy-invalid'
  | 'sts-webpki-invalid';

/** The recipient's published policy a connection is checked against, for TLS reports (tls-report.ts). */
export interface PolicyInForce {
  type: 'sts' | 'tlsa';
  /** The recipient domain whose policy it is (RFC 8460's policy domain; for DANE, the domain whose MX host it is). */
  domain: string;
  /** The policy's text, one string a line (RFC 8460 §4.4 `policy-string`). */
  strings: string[];
  /** MTA-STS `testing`: failures are reported, not enforced. */
  testing: boolean;
}

export type TlsRequirement =
  | { level: 'opportunistic'; policy?: PolicyInForce }
  /** Encrypted, whatever the certificate: the sender's tls: enforced, or TLSA records none of which is usable (RFC 7672 §2.2). */
  | { level: 'encrypted'; because: string; policy?: PolicyInForce }
  /** Encrypted with a certificate the trust store vouches for and valid for the MX host name: MTA-STS enforce. */
  | { level: 'verified'; because: string; policy: PolicyInForce }
  /** Encrypted with a certificate matching the host's TLSA records (DANE-EE, DANE-TA). */
  | { level: 'dane'; because: string; policy: PolicyInForce; tlsa: TlsaRecord[] };

export const OPPORTUNISTIC: TlsRequirement = { level: 'opportunistic' };

const STRENGTH = { opportunistic: 0, encrypted: 1, verified: 2, dane: 3 } as const;

/** The stronger of two requirements (the first on a tie). */
export function stronger(a: TlsRequirement, b: TlsRequirement): TlsRequirement {
  return STRENGTH[b.level] > STRENGTH[a.level] ? b : a;
}

/**
 * Sessions are pooled per requirement: one opened under a weaker one is never reused for a
 * stronger one, nor one checked against a host name for another host at the same address.
 */
export function requirementKey(requirement: TlsRequirement, host: string): string {
  if (requirement.level === 'verified') return `verified ${host}`;
  if (requirement.level !== 'dane') return requirement.level;
  return `dane ${host} ${requirement.tlsa.map((r) => `${r.usage} ${r.selector} ${r.matchingType} ${r.data.toString('hex')}`).join(',')}`;
}

/** The requirement in a few words, for the attempt log: `verified: the MTA-STS policy of example.com (enforce, id 1)`. */
export function describeRequirement(requirement: TlsRequirement): string {
  if (requirement.level !== 'opportunistic') return `${requirement.level}: ${requirement.because}`;
  return requirement.policy?.testing ? `opportunistic: the MTA-STS policy of ${requirement.policy.domain} is in testing mode` : 'opportunistic';
}

/** What an open session's TLS is: read from the socket after EHLO (smtp-pool.ts). */
export interface SessionTls {
  /** TLS negotiated, by STARTTLS or from the first byte. */
  encrypted: boolean;
  /** `TLSv1.3`, …; null in plain text. */
  protocol: string | null;
  /** The chain verified against the trust store and the certificate is valid for the SNI name (node's `authorized`). */
  authorized: boolean;
  /** Why not, in node's words (ERR_TLS_CERT_ALTNAME_INVALID, DEPTH_ZERO_SELF_SIGNED_CERT, …). */
  authorizationError: string | null;
  /** The peer's certificate, its issuers linked by `issuerCertificate`. */
  peer: tls.DetailedPeerCertificate | null;
}

/** A failed check of a session; `reportOnly` under an MTA-STS policy in testing mode, where the session is used all the same. */
export type TlsCheck = { ok: true } | { ok: false; reason: string; failure: TlsFailure; reportOnly: boolean };

/** Whether a session meets the requirement when connected to `host`; the reason names the requirement's source. */
export function checkSession(requirement: TlsRequirement, session: SessionTls, host: string): TlsCheck {
  if (requirement.level === 'opportunistic' && requirement.policy?.testing) {
    // MTA-STS testing (RFC 8461 §5): checked as enforce would, failures only reported.
    const check = checkAgainst(
      { level: 'verified', because: `the MTA-STS policy of ${requirement.policy.domain} (testing)`, policy: requirement.policy },
      session,
      host,
    );
    return check.ok ? check : { ...check, reportOnly: true };
  }
  return checkAgainst(requirement, session, host);
}

function checkAgainst(requirement: TlsRequirement, session: SessionTls, host: string): TlsCheck {
  const refuse = (failure: TlsFailure, reason: string): TlsCheck => ({ ok: false, failure, reason, reportOnly: false });
  if (requirement.level === 'opportunistic') return { ok: true };
  const { because } = requirement;
  if (!session.encrypted) {
    return refuse('starttls-not-supported', `TLS is required (${because}) but ${host} did not encrypt the session (STARTTLS not offered or refused)`);
  }
  if (requirement.level === 'verified' && !session.authorized) {
    const error = session.authorizationError ?? 'unknown error';
    return refuse(pkixFailure(error), `${because} requires a certificate valid for ${host}: ${describeCertificateError(error)} (${error})`);
  }
  if (requirement.level === 'dane') {
    const verdict = daneVerdict(requirement.tlsa, chainOf(session.peer), host);
    if (!verdict.ok) return refuse('validation-failure', `${because}: ${verdict.reason}`);
  }
  return { ok: true };
}

/** The peer's chain, leaf first, as DER certificates (a self-signed one links to itself). */
function chainOf(peer: tls.DetailedPeerCertificate | null): tls.DetailedPeerCertificate[] {
  const chain: tls.DetailedPeerCertificate[] = [];
  for (let cert = peer; cert?.raw && !chain.includes(cert); cert = cert.issuerCertificate) chain.push(cert);
  return chain;
}

function pkixFailure(error: string): TlsFailure {
  if (error === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'certificate-host-mismatch';
  if (error === 'CERT_HAS_EXPIRED' || error === 'CERT_NOT_YET_VALID') return 'certificate-expired';
  if (/SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY_LEAF|CERT_UNTRUSTED|CERT_REJECTED/.test(error)) return 'certificate-not-trusted';
  return 'validation-failure';
}

function describeCertificateError(error: string): string {
  switch (pkixFailure(error)) {
    case 'certificate-host-mismatch':
      return 'the certificate is for another name';
    case 'certificate-expired':
      return 'the certificate is expired or not yet valid';
    case 'certificate-not-trusted':
      return 'no trusted authority issued the certificate';
    default:
      return 'the certificate could not be validated';
  }
}
