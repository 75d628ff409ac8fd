// How received reports appear on the wire (GET /domains/:id/dmarc-reports…, /tls-reports), with
// the schemas their routes document. Periods and receipt times are ISO 8601.
import { array, boolean, constant, integer, isoTime, nullable, number, object, string, uuid } from '../api/schema.js';

const REPORTER = string({ description: "The reporter's organization name (org_name; RFC 8460 organization-name)." });

const POLICY_SCHEMA = object(
  { p: nullable(string()), sp: nullable(string()), pct: nullable(integer()), adkim: nullable(string()), aspf: nullable(string()), np: nullable(string()) },
  ['p', 'sp', 'pct', 'adkim', 'aspf', 'np'],
  { description: 'policy_published: the DMARC record the receiver applied.' },
);

export const DMARC_REPORT_SCHEMA = object({
  id: uuid(),
  report_id: string({ description: "The reporter's report id: with the reporter, what makes a report sent twice one." }),
  reporter: REPORTER,
  reporter_email: nullable(string()),
  begin: isoTime(),
  end: isoTime(),
  policy_domain: string(),
  policy: POLICY_SCHEMA,
  messages: integer({ description: 'Messages the report counts, from every source.' }),
  passing: integer({ description: 'Of those, the messages that passed DMARC (DKIM or SPF aligned and passed).' }),
  problems: array(string(), { description: 'What could not be read in the report, each with why (the rest is kept).' }),
  received_at: isoTime(),
});

const AUTH_RESULTS_SCHEMA = object(
  {
    dkim: array(object({ domain: string(), selector: nullable(string()), result: string() })),
    spf: array(object({ domain: string(), scope: nullable(string()), result: string() })),
  },
  ['dkim', 'spf'],
  { description: 'auth_results: every DKIM signature and SPF check the receiver made.' },
);

const DMARC_ROW_SCHEMA = object({
  source_ip: string(),
  count: integer(),
  disposition: nullable(string({ description: 'none, quarantine or reject (what the receiver did).' })),
  dkim_aligned: nullable(string({ description: 'policy_evaluated.dkim: pass when a DKIM signature aligned with the From domain passed.' })),
  spf_aligned: nullable(string({ description: 'policy_evaluated.spf: pass when SPF passed for an aligned envelope domain.' })),
  header_from: nullable(string()),
  envelope_from: nullable(string()),
  envelope_to: nullable(string()),
  auth_results: AUTH_RESULTS_SCHEMA,
  overrides: array(object({ type: string(), comment: nullable(string()) }), {
    description: 'policy_evaluated.reason: local policy overrides (forwarded, mailing_list…).',
  }),
});

export const DMARC_REPORT_DETAIL_SCHEMA = object({ object: constant('dmarc_report'), ...DMARC_REPORT_SCHEMA.properties, rows: array(DMARC_ROW_SCHEMA) });

export interface DmarcReportRow {
  id: string;
  report_id: string;
  reporter_org: string;
  reporter_email: string | null;
  period_begin: Date;
  period_end: Date;
  policy_domain: string;
  policy: { p: string | null; sp: string | null; pct: number | null; adkim: string | null; aspf: string | null; np: string | null };
  messages: number;
  passing: number;
  problems: string[];
  created_at: Date;
}

export const DMARC_REPORT_COLUMNS =
  'id, report_id, reporter_org, reporter_email, period_begin, period_end, policy_domain, policy, messages, passing, problems, created_at';

export function dmarcReportView(r: DmarcReportRow) {
  return {
    id: r.id,
    report_id: r.report_id,
    reporter: r.reporter_org,
    reporter_email: r.reporter_email,
    begin: r.period_begin.toISOString(),
    end: r.period_end.toISOString(),
    policy_domain: r.policy_domain,
    policy: {
      p: r.policy.p ?? null,
      sp: r.policy.sp ?? null,
      pct: r.policy.pct ?? null,
      adkim: r.policy.adkim ?? null,
      aspf: r.policy.aspf ?? null,
      np: r.policy.np ?? null,
    },
    messages: Number(r.messages),
    passing: Number(r.passing),
    problems: r.problems,
    received_at: r.created_at.toISOString(),
  };
}

export interface DmarcRowRow {
  source_ip: string;
  count: number;
  disposition: string | null;
  dkim_aligned: string | null;
  spf_aligned: string | null;
  header_from: string | null;
  envelope_from: string | null;
  envelope_to: string | null;
  auth_results: {
    dkim: { domain: string; selector: string | null; result: string }[];
    spf: { domain: string; scope: string | null; result: string }[];
    overrides: { type: string; comment: string | null }[];
  };
}

export function dmarcRowView(r: DmarcRowRow) {
  return {
    source_ip: r.source_ip,
    count: Number(r.count),
    disposition: r.disposition,
    dkim_aligned: r.dkim_aligned,
    spf_aligned: r.spf_aligned,
    header_from: r.header_from,
    envelope_from: r.envelope_from,
    envelope_to: r.envelope_to,
    auth_results: { dkim: r.auth_results.dkim, spf: r.auth_results.spf },
    overrides: r.auth_results.overrides,
  };
}

const FAILURE_SCHEMA = object({
  policy_domain: string(),
  policy_type: string({ description: 'sts, tlsa or no-policy-found.' }),
  result_type: string({ description: 'RFC 8460 §4.3: starttls-not-supported, certificate-expired, validation-failure, sts-policy-fetch-error…' }),
  receiving_mx_hostname: nullable(string()),
  receiving_ip: nullable(string()),
  sending_mta_ip: nullable(string()),
  failed_sessions: integer(),
  failure_reason: nullable(string({ description: "failure-reason-code: the reporter's own words." })),
});

export const TLS_REPORT_SCHEMA = object({
  id: uuid(),
  report_id: string(),
  reporter: REPORTER,
  contact: nullable(string({ description: "contact-info: the reporter's address." })),
  begin: isoTime(),
  end: isoTime(),
  successful_sessions: integer(),
  failed_sessions: integer(),
  policies: array(
    object({
      policy_type: string(),
      policy_domain: string(),
      mx_hosts: array(string()),
      successful_sessions: integer(),
      failed_sessions: integer(),
    }),
  ),
  failures: array(FAILURE_SCHEMA, { description: "Each failure the report details, most failed sessions first: which receiving MX (this domain's), why." }),
  problems: array(string()),
  received_at: isoTime(),
});

interface StoredFailure {
  result_type: string;
  sending_mta_ip: string | null;
  receiving_mx_hostname: string | null;
  receiving_ip: string | null;
  failed_sessions: number;
  failure_reason: string | null;
}

export interface TlsReportRow {
  id: string;
  report_id: string;
  reporter_org: string;
  contact: string | null;
  period_begin: Date;
  period_end: Date;
  successful_sessions: number;
  failed_sessions: number;
  policies: {
    policy_type: string;
    policy_domain: string;
    mx_hosts: string[];
    successful_sessions: number;
    failed_sessions: number;
    failures: StoredFailure[];
  }[];
  problems: string[];
  created_at: Date;
}

export const TLS_REPORT_COLUMNS =
  'id, report_id, reporter_org, contact, period_begin, period_end, successful_sessions, failed_sessions, policies, problems, created_at';

export function tlsReportView(r: TlsReportRow) {
  return {
    id: r.id,
    report_id: r.report_id,
    reporter: r.reporter_org,
    contact: r.contact,
    begin: r.period_begin.toISOString(),
    end: r.period_end.toISOString(),
    successful_sessions: Number(r.successful_sessions),
    failed_sessions: Number(r.failed_sessions),
    policies: r.policies.map(({ failures: _, ...policy }) => policy),
    failures: r.policies
      .flatMap((p) =>
        p.failures.map((f) => ({
          policy_domain: p.policy_domain,
          policy_type: p.policy_type,
          result_type: f.result_type,
          receiving_mx_hostname: f.receiving_mx_hostname,
          receiving_ip: f.receiving_ip,
          sending_mta_ip: f.sending_mta_ip,
          failed_sessions: f.failed_sessions,
          failure_reason: f.failure_reason,
        })),
      )
      .sort((a, b) => b.failed_sessions - a.failed_sessions),
    problems: r.problems,
    received_at: r.created_at.toISOString(),
  };
}

export const DMARC_SOURCE_SCHEMA = object({
  source_ip: string(),
  messages: integer({ description: 'Messages from this address the period’s reports count.' }),
  passing: integer({ description: 'Of those, the messages that passed DMARC (DKIM or SPF aligned and passed).' }),
  pass_rate: number({ description: 'passing / messages, 0 to 1.' }),
  postline: boolean({
    description:
      "Whether the address is Postline's own: one of POSTLINE_OUTBOUND_IPS, an outbound address a node warmed up, or an address of the SMTP host name (what the recommended SPF record authorizes). Mail from other addresses was sent by someone else in the domain's name.",
  }),
});
