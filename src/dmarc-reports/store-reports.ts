// Keeping what readReportMail (read-report-mail.ts) found in one received message, inside the
// receiving transaction (inbound/inbound.ts), for each account the message came to:
//   limit the sender's flood → attach each report to the account's domain its policy domain
//   names → store it once (the same reporter and report id for a domain: one row, ON CONFLICT
//   DO NOTHING) with its rows → `domain.dmarc_report_received` for each new DMARC report.
// What attaches nothing is kept in unrecognised_report_mail with the reason: a report for a
// domain the account does not own (never attached to another account's), a part that could
// not be read, a message to a report mailbox with no report in it, reports past the hourly
// limit of their sender. A report is never attached across accounts: domains are looked up by
// the account the message came to. Returns what was done, for the metrics recorded after commit.
import crypto from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { recordEvents } from '../events/record-events.js';
import { type ReportOutcome, type ReportTally, reportsReceived } from '../metrics/record.js';
import type { DmarcAggregateReport, ReportMailReading, SmtpTlsReport, TlsPolicyResult } from './report-types.js';

/** Reports an account takes in an hour from one sending address, or from one reporter's domain; beyond, they are refused (recorded, not stored). */
export const REPORTS_PER_HOUR = 500;
/** Longest report id and reporter kept (they are in a unique key, whose index entries are bounded). */
const MAX_KEY_TEXT = 256;

/** The message as the account received it. */
export interface ReportDelivery {
  accountId: string;
  /** The address it came to for this account (a report mailbox, or an address of a receiving domain). */
  recipient: string;
  /** Whether it came to a report mailbox (report-addresses.ts): a message without a report there is recorded as such. */
  atReportMailbox: boolean;
}

interface Envelope {
  sourceIp: string;
  mailFrom: string;
}

interface StoredDmarcReport {
  accountId: string;
  domain: string;
  messages: number;
  passing: number;
}

/** What storing one message's reports came to, over all its accounts. */
export interface ReportIntake {
  dmarc: StoredDmarcReport[];
  /** Each report's outcome (a TLS report's per policy domain), with the domain it was stored under. */
  tallies: ReportTally[];
  /** Parts that could not be read, messages to a report mailbox with no report. */
  unreadable: number;
}

interface OwnedDomain {
  id: string;
  name: string;
}

/** PostgreSQL text and jsonb refuse NUL: a reporter's stray one must not fail the whole message (and have it retried for ever). */
function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return value.replaceAll(String.fromCharCode(0), '') as T;
  if (value instanceof Date || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutNul(v)])) as T;
}

/**
 * JSON.stringify's text for PostgreSQL's json input, which refuses a lone surrogate's escape
 * (`\ud800` not followed by its pair) where text parameters turn it into U+FFFD: so does this.
 * Only an escape that is one (an even run of backslashes before it) is replaced.
 */
function wellFormedJson(value: unknown): string {
  const json = JSON.stringify(value);
  // JSON.stringify writes a lone surrogate as a lower-case escape; most documents have none, and skip the scan.
  return json.includes('\\ud') ? json.replace(/(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g, '$1\\ufffd') : json;
}

/** Whether withoutNul would change anything: a walk that copies nothing (a 20,000-row report's copy costs ~0.25 s of CPU). */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(String.fromCharCode(0));
  if (value instanceof Date || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasNul);
  return Object.values(value).some(hasNul);
}

const bareDomain = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');
const short = (text: string) => text.slice(0, MAX_KEY_TEXT);
const domainOfAddress = (address: string | null) =>
  address?.includes('@')
    ? bareDomain(
        address
          .replace(/^mailto:/i, '')
          .split('@')
          .pop()!,
      )
    : null;
/** A time PostgreSQL stores and a report could mean: 1970 to 9999. */
const storable = (d: Date | undefined) => d instanceof Date && d.getTime() >= 0 && d.getTime() < 253_402_300_800_000;
const validPeriod = (r: { periodBegin: Date; periodEnd: Date }) => storable(r.periodBegin) && storable(r.periodEnd);
/** A message count as bigint takes it: a count the reader could not make a whole number of is 0 (the reader says why in problems). */
const count = (n: number) => (Number.isSafeInteger(n) && n >= 0 ? n : 0);

/** The reporter's domain (its address's), else its organisation name: the second key of the flood limit. */
function reporterOf(report: DmarcAggregateReport | SmtpTlsReport): string {
  const address = report.kind === 'dmarc' ? report.reporterEmail : report.contact;
  return short(domainOfAddress(address) ?? report.orgName.trim().toLowerCase());
}

const reporterKey = (org: string, address: string | null) => short(`${org.trim().toLowerCase()}|${(address ?? '').trim().toLowerCase()}`);

const dmarcPass = (row: { dkimAligned: string | null; spfAligned: string | null }) => row.dkimAligned === 'pass' || row.spfAligned === 'pass';

/**
 * Stores what `found` holds for each of `deliveries`, inside the caller's transaction. Under a
 * savepoint: should storing fail (a value PostgreSQL refuses), the rest of the message (received
 * mail) is still kept, and the failure is recorded for each account as unrecognised report mail.
 */
export async function storeReportMail(
  q: Queryable,
  found: ReportMailReading | null,
  deliveries: ReportDelivery[],
  envelope: Envelope,
): Promise<ReportIntake & { error?: unknown }> {
  await q.query('SAVEPOINT store_reports');
  try {
    const intake = await storeAll(q, found, deliveries, envelope);
    await q.query('RELEASE SAVEPOINT store_reports');
    return intake;
  } catch (error) {
    await q.query('ROLLBACK TO SAVEPOINT store_reports');
    const sourceIp = envelope.sourceIp.replace(/^::ffff:/, '');
    const reason = withoutNul(`not stored: ${(error as Error).message}`).slice(0, 1000);
    const unknown: Unrecognised = { reason, kind: null, reporter: null, reportId: null, policyDomain: null };
    for (const delivery of deliveries) await recordUnrecognised(q, delivery, [unknown], { sourceIp, mailFrom: withoutNul(envelope.mailFrom) });
    return { dmarc: [], tallies: [], unreadable: deliveries.length, error };
  }
}

async function storeAll(q: Queryable, found: ReportMailReading | null, deliveries: ReportDelivery[], envelope: Envelope): Promise<ReportIntake> {
  const intake: ReportIntake = { dmarc: [], tallies: [], unreadable: 0 };
  const reading = found && (hasNul(found) ? withoutNul(found) : found);
  const sourceIp = envelope.sourceIp.replace(/^::ffff:/, '');
  const mailFrom = withoutNul(envelope.mailFrom);
  for (const delivery of deliveries) {
    const unrecognised: Unrecognised[] = [];
    const note = (reason: string, report?: DmarcAggregateReport | SmtpTlsReport, policyDomain?: string, outcome: ReportOutcome = 'unrecognised') => {
      if (report) intake.tallies.push({ kind: report.kind, outcome, domain: '' });
      else intake.unreadable++;
      unrecognised.push({
        reason,
        kind: report?.kind ?? null,
        reporter: report?.orgName ?? null,
        reportId: report?.reportId ?? null,
        policyDomain: policyDomain ?? null,
      });
    };
    for (const part of reading?.unreadable ?? []) note(`unreadable part ${part.filename ?? `(${part.contentType})`}: ${part.reason}`);
    const reports = reading?.reports ?? [];
    if (reports.length === 0 && unrecognised.length === 0 && delivery.atReportMailbox) note('no report in the message');
    if (reports.length > 0) {
      const over = await overLimit(q, delivery.accountId, [`ip:${sourceIp}`, ...reports.map((r) => `from:${reporterOf(r)}`)], reports.length);
      if (over) {
        for (const report of reports)
          note(`refused: more than ${REPORTS_PER_HOUR} reports an hour from ${over}`, report, policyDomainsOf(report)[0], 'refused');
      } else {
        const owned = await ownedDomains(q, delivery.accountId, reports.flatMap(policyDomainsOf));
        for (const report of reports) {
          if (!validPeriod(report)) {
            note('the report has no readable period', report, policyDomainsOf(report)[0]);
            continue;
          }
          if (report.kind === 'dmarc') {
            const domain = owned.get(bareDomain(report.policyDomain));
            if (!domain) {
              note(`the report is about ${report.policyDomain}, not a domain of this account`, report, report.policyDomain);
              continue;
            }
            const stored = await storeDmarc(q, delivery.accountId, domain, report, { sourceIp, mailFrom });
            if (stored) intake.dmarc.push({ accountId: delivery.accountId, domain: domain.name, messages: stored.messages, passing: stored.passing });
            intake.tallies.push({ kind: 'dmarc', outcome: stored ? 'stored' : 'duplicate', domain: domain.name });
            continue;
          }
          for (const [policyDomain, policies] of policiesByDomain(report)) {
            const domain = owned.get(policyDomain);
            if (!domain) {
              note(`the report is about ${policyDomain}, not a domain of this account`, report, policyDomain);
              continue;
            }
            const stored = await storeTls(q, delivery.accountId, domain, report, policies, { sourceIp, mailFrom });
            intake.tallies.push({ kind: 'tls', outcome: stored ? 'stored' : 'duplicate', domain: domain.name });
          }
        }
      }
    }
    await recordUnrecognised(q, delivery, unrecognised, { sourceIp, mailFrom });
  }
  return intake;
}

interface Unrecognised {
  reason: string;
  kind: 'dmarc' | 'tls' | null;
  reporter: string | null;
  reportId: string | null;
  policyDomain: string | null;
}

function policyDomainsOf(report: DmarcAggregateReport | SmtpTlsReport): string[] {
  return report.kind === 'dmarc' ? [bareDomain(report.policyDomain)] : report.policies.map((p) => bareDomain(p.policyDomain));
}

function policiesByDomain(report: SmtpTlsReport): Map<string, TlsPolicyResult[]> {
  const byDomain = new Map<string, TlsPolicyResult[]>();
  for (const policy of report.policies) {
    const name = bareDomain(policy.policyDomain);
    byDomain.set(name, [...(byDomain.get(name) ?? []), policy]);
  }
  return byDomain;
}

/**
 * Counts `reports` against each sender key of the account's current hour (one UPSERT); the
 * first key past REPORTS_PER_HOUR, or null. Refused messages count too: a flood stays refused.
 */
async function overLimit(q: Queryable, accountId: string, senders: string[], reports: number): Promise<string | null> {
  const keys = [...new Set(senders)].sort();
  const rows = await q.query<{ sender: string; reports: number }>(
    `INSERT INTO report_intake AS i (account_id, sender, hour, reports)
     SELECT $1, unnest($2::text[]), date_trunc('hour', now()), $3
     ON CONFLICT (account_id, sender, hour) DO UPDATE SET reports = i.reports + EXCLUDED.reports
     RETURNING sender, reports`,
    [accountId, keys, reports],
    'report-intake',
  );
  const over = rows.find((r) => r.reports > REPORTS_PER_HOUR);
  return over ? over.sender.replace(/^(ip|from):/, '') : null;
}

/** The account's own domains (never a claim's placeholder) among `names`, by name. */
async function ownedDomains(q: Queryable, accountId: string, names: string[]): Promise<Map<string, OwnedDomain>> {
  const rows = await q.query<OwnedDomain>('SELECT id, name FROM domains WHERE account_id = $1 AND name = ANY($2::text[]) AND NOT placeholder', [
    accountId,
    [...new Set(names)],
  ]);
  return new Map(rows.map((r) => [r.name, r]));
}

async function storeDmarc(q: Queryable, accountId: string, domain: OwnedDomain, report: DmarcAggregateReport, envelope: Envelope) {
  const messages = report.rows.reduce((sum, row) => sum + count(row.count), 0);
  const passing = report.rows.reduce((sum, row) => sum + (dmarcPass(row) ? count(row.count) : 0), 0);
  const id = crypto.randomUUID();
  const inserted = await q.query<{ id: string }>(
    `INSERT INTO dmarc_reports (id, account_id, domain_id, reporter_org, reporter_email, reporter_key, report_id, period_begin, period_end,
       policy_domain, policy, report_schema, messages, passing, problems, source_ip, mail_from)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
     ON CONFLICT (domain_id, reporter_key, report_id) DO NOTHING RETURNING id`,
    [
      id,
      accountId,
      domain.id,
      report.orgName,
      report.reporterEmail,
      reporterKey(report.orgName, report.reporterEmail),
      short(report.reportId),
      report.periodBegin,
      report.periodEnd,
      bareDomain(report.policyDomain),
      JSON.stringify(report.policy),
      report.schema,
      messages,
      passing,
      JSON.stringify(report.problems),
      envelope.sourceIp,
      envelope.mailFrom,
    ],
  );
  if (inserted.length === 0) return null;
  const rows = report.rows;
  if (rows.length > 0) {
    // The rows as one JSON document, not one array parameter per column: a 20,000-row report's
    // ten arrays cost pg's JavaScript array encoding and PostgreSQL's array and jsonb[] input
    // about twice what JSON.stringify and json_to_recordset do (bench/dmarc-reports-store.ts).
    await q.query(
      `INSERT INTO dmarc_report_rows (report_id, account_id, domain_id, period_begin, position, source_ip, count, disposition, dkim_aligned, spf_aligned,
         header_from, envelope_from, envelope_to, auth_results)
       SELECT $1, $2, $3, $4, v.* FROM json_to_recordset($5::json) AS v(position int, source_ip text, count bigint, disposition text, dkim_aligned text,
         spf_aligned text, header_from text, envelope_from text, envelope_to text, auth_results jsonb)`,
      [
        id,
        accountId,
        domain.id,
        report.periodBegin,
        wellFormedJson(
          rows.map((r, i) => ({
            position: i,
            source_ip: r.sourceIp,
            count: count(r.count),
            disposition: r.disposition,
            dkim_aligned: r.dkimAligned,
            spf_aligned: r.spfAligned,
            header_from: r.headerFrom,
            envelope_from: r.envelopeFrom,
            envelope_to: r.envelopeTo,
            auth_results: { dkim: r.dkim, spf: r.spf, overrides: r.overrides },
          })),
        ),
      ],
    );
  }
  await recordEvents(q, [
    {
      accountId,
      type: 'domain.dmarc_report_received',
      data: {
        domain_id: domain.id,
        domain: domain.name,
        report_id: report.reportId,
        reporter: report.orgName,
        begin: report.periodBegin.toISOString(),
        end: report.periodEnd.toISOString(),
        messages,
        passing,
      },
    },
  ]);
  return { messages, passing };
}

/** The policies as stored and shown (snake_case, as RFC 8460's JSON names them). */
const storedPolicies = (policies: TlsPolicyResult[]) =>
  policies.map((p) => ({
    policy_type: p.policyType,
    policy_domain: bareDomain(p.policyDomain),
    mx_hosts: p.mxHosts,
    successful_sessions: p.successfulSessions,
    failed_sessions: p.failedSessions,
    failures: p.failures.map((f) => ({
      result_type: f.resultType,
      sending_mta_ip: f.sendingMtaIp,
      receiving_mx_hostname: f.receivingMxHostname,
      receiving_ip: f.receivingIp,
      failed_sessions: f.failedSessions,
      failure_reason: f.failureReason,
    })),
  }));

async function storeTls(q: Queryable, accountId: string, domain: OwnedDomain, report: SmtpTlsReport, policies: TlsPolicyResult[], envelope: Envelope) {
  const inserted = await q.query<{ id: string }>(
    `INSERT INTO received_tls_reports (id, account_id, domain_id, reporter_org, contact, reporter_key, report_id, period_begin, period_end,
       successful_sessions, failed_sessions, policies, problems, source_ip, mail_from)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     ON CONFLICT (domain_id, reporter_key, report_id) DO NOTHING RETURNING id`,
    [
      crypto.randomUUID(),
      accountId,
      domain.id,
      report.orgName,
      report.contact,
      reporterKey(report.orgName, report.contact),
      short(report.reportId),
      report.periodBegin,
      report.periodEnd,
      policies.reduce((sum, p) => sum + count(p.successfulSessions), 0),
      policies.reduce((sum, p) => sum + count(p.failedSessions), 0),
      JSON.stringify(storedPolicies(policies)),
      JSON.stringify(report.problems),
      envelope.sourceIp,
      envelope.mailFrom,
    ],
  );
  return inserted.length > 0;
}

async function recordUnrecognised(q: Queryable, delivery: ReportDelivery, entries: Unrecognised[], envelope: Envelope): Promise<void> {
  if (entries.length === 0) return;
  await q.query(
    `INSERT INTO unrecognised_report_mail (account_id, recipient, reason, kind, reporter, report_id, policy_domain, source_ip, mail_from)
     SELECT $1, $2, v.*, $8, $9 FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS v`,
    [
      delivery.accountId,
      delivery.recipient,
      entries.map((e) => e.reason),
      entries.map((e) => e.kind),
      entries.map((e) => e.reporter),
      entries.map((e) => (e.reportId === null ? null : short(e.reportId))),
      entries.map((e) => e.policyDomain),
      envelope.sourceIp,
      envelope.mailFrom,
    ],
  );
}

/** Counts what `intake` came to in the metrics: call after the receiving transaction commits. */
export function recordIntakeMetrics(intake: ReportIntake): void {
  reportsReceived(
    intake.tallies,
    intake.dmarc.map((r) => ({ domain: r.domain, messages: r.messages - r.passing })),
  );
}
