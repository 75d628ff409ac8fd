// Reading an SMTP TLS report (RFC 8460 §4): JSON with organization-name, date-range,
// contact-info, report-id and policies, each with its policy, summary and failure-details.
// Reporters vary (counts as strings, mx-host as strings or objects, missing contact-info), so
// the reading is forgiving: what is missing or wrong is said in `problems`, a policy that cannot
// be read is skipped with its reason. Nothing here throws.
import type { SmtpTlsReport, TlsFailureDetail, TlsPolicyResult } from './report-types.js';
import type { Reading } from './dmarc-xml.js';
import { capped, quoted } from './problems.js';
import { decodeText } from './unpack.js';

type Obj = Record<string, unknown>;

/** Whether `text` looks like an SMTP TLS report (worth reading, or saying why it cannot be). */
export const looksLikeTlsJson = (text: string) => /^\s*\{/.test(text) && /"(policies|organization-name|report-id)"/.test(text.slice(0, 65536));

/** `problems`: what was already found wrong on the way here (unpacking, decoding), kept with the report. */
export function readTlsJson(json: string | Uint8Array, problems: string[] = []): Reading<SmtpTlsReport> {
  const text = typeof json === 'string' ? json.replace(/^\uFEFF/, '') : decodeText(json, problems);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { unreadable: `not JSON: ${(err as Error).message}` };
  }
  const report = obj(parsed);
  if (!report || !('policies' in report || 'organization-name' in report)) return { unreadable: 'not an SMTP TLS report (no policies, no organization-name)' };

  const orgName = str(report['organization-name']) ?? '';
  if (!orgName) problems.push('no organization-name');
  const reportId = str(report['report-id']) ?? '';
  if (!reportId) problems.push('no report-id');
  const range = obj(report['date-range']) ?? {};
  const policies: TlsPolicyResult[] = [];
  const listed = report.policies;
  if (!Array.isArray(listed)) problems.push('policies is not a list');
  (Array.isArray(listed) ? listed : []).forEach((p, i) => {
    const policy = readPolicy(obj(p), i + 1, problems);
    if (policy) policies.push(policy);
  });
  return {
    report: {
      kind: 'tls',
      orgName,
      reportId,
      contact: str(report['contact-info']),
      periodBegin: date(range['start-datetime'], 'start-datetime', problems),
      periodEnd: date(range['end-datetime'], 'end-datetime', problems),
      policies,
      problems: capped(problems),
    },
  };
}

function readPolicy(entry: Obj | null, n: number, problems: string[]): TlsPolicyResult | null {
  const skipped = (why: string) => {
    problems.push(`policy ${n}: ${why}, skipped`);
    return null;
  };
  const policy = obj(entry?.policy);
  if (!entry || !policy) return skipped('no policy object');
  const policyDomain = str(policy['policy-domain']);
  if (!policyDomain) return skipped('no policy-domain');
  const policyType = str(policy['policy-type']) ?? 'no-policy-found';
  if (!str(policy['policy-type'])) problems.push(`policy ${n}: no policy-type: no-policy-found taken`);
  const summary = obj(entry.summary) ?? {};
  const successful = count(summary['total-successful-session-count'], `policy ${n}: total-successful-session-count`, problems);
  const failed = count(summary['total-failure-session-count'], `policy ${n}: total-failure-session-count`, problems);
  const mxHosts = (Array.isArray(policy['mx-host']) ? policy['mx-host'] : policy['mx-host'] === undefined ? [] : [policy['mx-host']]).flatMap((m) => {
    const host = str(m) ?? str(obj(m)?.hostname) ?? str(obj(m)?.pattern);
    return host ? [host] : [];
  });
  const details = entry['failure-details'];
  const failures: TlsFailureDetail[] = (Array.isArray(details) ? details : []).flatMap((d, j) => {
    const detail = obj(d);
    const resultType = str(detail?.['result-type']);
    if (!detail || !resultType) {
      problems.push(`policy ${n} failure ${j + 1}: no result-type, skipped`);
      return [];
    }
    return [
      {
        resultType,
        sendingMtaIp: str(detail['sending-mta-ip']),
        receivingMxHostname: str(detail['receiving-mx-hostname']),
        receivingIp: str(detail['receiving-ip']),
        failedSessions: count(detail['failed-session-count'], `policy ${n} failure ${j + 1}: failed-session-count`, problems),
        failureReason: str(detail['failure-reason-code']) ?? str(detail['additional-information']),
      },
    ];
  });
  return {
    policyType,
    policyDomain: policyDomain.toLowerCase(),
    mxHosts,
    successfulSessions: successful,
    failedSessions: failed,
    failures,
  };
}

const obj = (v: unknown): Obj | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);

function str(v: unknown): string | null {
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string') return null;
  const s = v.trim();
  return s === '' ? null : s;
}

/** A count of sessions: a number, or a string of digits; 0 when missing or wrong, said in problems. */
function count(v: unknown, what: string, problems: string[]): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\s*\d+\s*$/.test(v) && Number.isSafeInteger(Number(v))) return Number(v);
  problems.push(v === undefined ? `${what} missing: 0 taken` : `${what} ${quoted(v)} is not a count: 0 taken`);
  return 0;
}

function date(v: unknown, what: string, problems: string[]): Date {
  const s = str(v);
  const parsed = s === null ? Number.NaN : Date.parse(s);
  if (!Number.isNaN(parsed)) return new Date(parsed);
  problems.push(s === null ? `no ${what}` : `${what} ${quoted(s)} is not a time`);
  return new Date(0);
}
