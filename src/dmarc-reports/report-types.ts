// What a DMARC aggregate report (RFC 7489 appendix C, its draft predecessor, DMARCbis) and an
// SMTP TLS report (RFC 8460 §4) come to once read: the shapes the readers (read-report-mail.ts)
// give and the store (store-reports.ts) keeps. Reporters get things wrong, so most fields may be
// missing; what could not be read is said in `problems` rather than thrown.

export type AuthResult = 'pass' | 'fail' | 'none' | 'neutral' | 'softfail' | 'temperror' | 'permerror' | 'policy' | string;

export interface DmarcRow {
  sourceIp: string;
  count: number;
  /** policy_evaluated.disposition: none, quarantine, reject (DMARCbis: also pass). */
  disposition: string | null;
  /** policy_evaluated: whether DKIM / SPF aligned and passed (the DMARC verdict's inputs). */
  dkimAligned: AuthResult | null;
  spfAligned: AuthResult | null;
  headerFrom: string | null;
  envelopeFrom: string | null;
  envelopeTo: string | null;
  /** auth_results: every DKIM signature and SPF check the receiver made. */
  dkim: { domain: string; selector: string | null; result: AuthResult }[];
  spf: { domain: string; scope: string | null; result: AuthResult }[];
  /** policy_evaluated.reason: local overrides (forwarded, mailing_list, …). */
  overrides: { type: string; comment: string | null }[];
}

export interface DmarcAggregateReport {
  kind: 'dmarc';
  /** Which schema it was read as: '1.0' (RFC 7489), 'draft' (no version, older layouts), 'dmarcbis'. */
  schema: '1.0' | 'draft' | 'dmarcbis';
  orgName: string;
  reporterEmail: string | null;
  reportId: string;
  periodBegin: Date;
  periodEnd: Date;
  /** policy_published. */
  policyDomain: string;
  policy: { p: string | null; sp: string | null; pct: number | null; adkim: string | null; aspf: string | null; np: string | null };
  rows: DmarcRow[];
  /** Rows or fields that could not be read, with why (kept with the report). */
  problems: string[];
}

export interface TlsFailureDetail {
  resultType: string;
  sendingMtaIp: string | null;
  receivingMxHostname: string | null;
  receivingIp: string | null;
  failedSessions: number;
  failureReason: string | null;
}

export interface TlsPolicyResult {
  policyType: 'sts' | 'tlsa' | 'no-policy-found' | string;
  policyDomain: string;
  mxHosts: string[];
  successfulSessions: number;
  failedSessions: number;
  failures: TlsFailureDetail[];
}

export interface SmtpTlsReport {
  kind: 'tls';
  orgName: string;
  reportId: string;
  contact: string | null;
  periodBegin: Date;
  periodEnd: Date;
  policies: TlsPolicyResult[];
  problems: string[];
}

/**
 * What reading one received message for reports found: each report it carried (a message may
 * carry more than one attachment), and each part that looked like a report but could not be
 * read, with the reason (a bomb refused, XML not well-formed, not a report at all…).
 * `null` from the reader: the message carries nothing that looks like a report.
 */
export interface ReportMailReading {
  reports: (DmarcAggregateReport | SmtpTlsReport)[];
  unreadable: { filename: string | null; contentType: string; reason: string }[];
}
