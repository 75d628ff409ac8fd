// A TLS report (RFC 8460): where a recipient domain wants it (its `_smtp._tls` TXT record, §3)
// and what it says (the JSON of §4), made from one UTC day's counted sessions
// (tls-policy/tls-report-counts.ts).

/** §3: records not starting with `v=TLSRPTv1` are discarded; with more or fewer than one left, the domain asks for no reports. */
export function parseTlsRptRecord(txtRecords: string[]): { rua: string[] } | { error: string } | null {
  const records = txtRecords.filter((r) => /^v=TLSRPTv1\s*(;|$)/.test(r));
  if (records.length === 0) return null;
  if (records.length > 1) return { error: `${records.length} TXT records start with v=TLSRPTv1; exactly one may` };
  const fields = records[0]!.split(';').map((f) => f.trim());
  const rua = fields.find((f) => f.startsWith('rua='));
  if (!rua) return { error: 'the record has no rua field' };
  // Commas and semicolons inside a URI are percent-encoded (§3), so the list splits on commas.
  const uris = rua
    .slice(4)
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  const usable = uris.filter((u) => /^mailto:[^@\s]+@[^@\s]+$/i.test(u) || /^https:\/\/[^\s]+$/i.test(u));
  if (usable.length === 0) return { error: `no mailto: or https: address in rua=${rua.slice(4)}` };
  return { rua: usable };
}

interface ReportMeta {
  /** organization-name and the submitter: the MTA's host name. */
  organization: string;
  contact: string;
  day: string;
  domain: string;
  reportId: string;
}

/** A tls_report_counts row (tls-policy/tls-report-counts.ts). */
export interface TlsReportCountRow {
  day: Date;
  policy_domain: string;
  policy_type: 'sts' | 'tlsa';
  policy_text: string;
  result: string;
  receiving_mx: string;
  receiving_ip: string;
  sending_ip: string;
  sessions: number;
}

/** The report of one day for one policy domain: a policy entry per policy met, with its sessions (§4.4). */
export function buildReport(rows: TlsReportCountRow[], meta: ReportMeta): object {
  const policies = new Map<string, { type: string; text: string; success: number; failure: number; details: object[] }>();
  for (const r of rows) {
    const key = `${r.policy_type}\n${r.policy_text}`;
    let policy = policies.get(key);
    if (!policy) policies.set(key, (policy = { type: r.policy_type, text: r.policy_text, success: 0, failure: 0, details: [] }));
    const sessions = Number(r.sessions);
    if (r.result === 'success') {
      policy.success += sessions;
      continue;
    }
    policy.failure += sessions;
    policy.details.push({
      'result-type': r.result,
      ...(r.sending_ip && { 'sending-mta-ip': r.sending_ip }),
      ...(r.receiving_mx && { 'receiving-mx-hostname': r.receiving_mx }),
      ...(r.receiving_ip && { 'receiving-ip': r.receiving_ip }),
      'failed-session-count': sessions,
    });
  }
  return {
    'organization-name': meta.organization,
    'date-range': { 'start-datetime': `${meta.day}T00:00:00Z`, 'end-datetime': `${meta.day}T23:59:59Z` },
    'contact-info': meta.contact,
    'report-id': meta.reportId,
    policies: [...policies.values()].map((p) => {
      const strings = p.text === '' ? [] : p.text.split('\n');
      const mxHosts = p.type === 'sts' ? strings.filter((s) => /^mx:/.test(s)).map((s) => s.slice(3).trim()) : [];
      return {
        policy: {
          'policy-type': p.type,
          'policy-string': strings,
          'policy-domain': meta.domain,
          ...(mxHosts.length > 0 && { 'mx-host': mxHosts }),
        },
        summary: { 'total-successful-session-count': p.success, 'total-failure-session-count': p.failure },
        ...(p.details.length > 0 && { 'failure-details': p.details }),
      };
    }),
  };
}
