// A domain's SMTP TLS reports on its page (RFC 8460; GET /domains/:id/tls-reports): what other
// servers delivering to its MX hosts reported over the last 30 days, the sessions that succeeded
// and failed in all, and the failures summed by receiving MX host and reason.
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, type Domain, type Item, type List } from '../api';
import { ErrorMessage } from '../components';
import { ListTable } from '../list-table';
import { percent } from './report-table';

type TlsReport = Item<'/domains/{id}/tls-reports'>;

const DAY_MS = 86_400_000;
/** The newest reports read (the API's largest page): a month of them for most domains. */
const READ = 100;

interface FailureSum {
  mx: string;
  result: string;
  reason: string | null;
  sessions: number;
  reporters: Set<string>;
}

function summarize(reports: TlsReport[]) {
  const failures = new Map<string, FailureSum>();
  for (const r of reports) {
    for (const f of r.failures) {
      const mx = f.receiving_mx_hostname ?? f.receiving_ip ?? 'not given';
      const key = `${mx}\n${f.result_type}\n${f.failure_reason ?? ''}`;
      const found = failures.get(key) ?? { mx, result: f.result_type, reason: f.failure_reason, sessions: 0, reporters: new Set<string>() };
      found.sessions += f.failed_sessions;
      found.reporters.add(r.reporter);
      failures.set(key, found);
    }
  }
  return {
    successful: reports.reduce((n, r) => n + r.successful_sessions, 0),
    failed: reports.reduce((n, r) => n + r.failed_sessions, 0),
    reporters: [...new Set(reports.map((r) => r.reporter))],
    failures: [...failures.values()].sort((a, b) => b.sessions - a.sessions || a.mx.localeCompare(b.mx)),
  };
}

export function TlsReportsSection({ domain }: { domain: Domain }) {
  const reports = useQuery({
    queryKey: ['domain', domain.id, 'tls-reports'],
    queryFn: () => api<List<TlsReport>>('GET', `/domains/${encodeURIComponent(domain.id)}/tls-reports?limit=${READ}`),
  });
  const since = useMemo(() => Date.now() - 30 * DAY_MS, []);
  const recent = useMemo(() => (reports.data?.data ?? []).filter((r) => new Date(r.end).getTime() >= since), [reports.data, since]);
  const sums = useMemo(() => summarize(recent), [recent]);
  const receiving = domain.capabilities.receiving === 'enabled';
  const tlsRecord = domain.recommended_records?.find((r) => r.record === 'TLS-RPT');
  return (
    <section aria-labelledby="tls-reports-title" className="tls-reports">
      <h2 id="tls-reports-title">TLS reports</h2>
      <p>
        Servers that deliver mail to {domain.name} over TLS report the sessions that failed (an expired certificate, a host without STARTTLS, an MTA-STS policy
        that does not match) to the address in its TLS-RPT record.
      </p>
      <ErrorMessage error={reports.error} />
      {reports.isPending && <p className="loading">Loading the TLS reports…</p>}
      {reports.data && recent.length === 0 && (
        <p className="notice" data-advice="no-tls-reports">
          {tlsRecord
            ? 'No TLS reports over the last 30 days: publish the TLS-RPT record above (its rua sends reports to Postline).'
            : receiving
              ? 'No TLS reports over the last 30 days.'
              : 'No TLS reports over the last 30 days. They are about mail delivered to this domain: Postline asks for them once it receives mail here (Receive mail, in the settings below).'}
        </p>
      )}
      {recent.length > 0 && (
        <>
          <dl className="figures tls-figures">
            <div>
              <dt>Successful sessions</dt>
              <dd data-figure="tls-successful">{sums.successful.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Failed sessions</dt>
              <dd data-figure="tls-failed">{sums.failed.toLocaleString()}</dd>
            </div>
            <div>
              <dt>Failing</dt>
              <dd data-figure="tls-failing">{percent(sums.failed, sums.successful + sums.failed)}</dd>
            </div>
          </dl>
          <p className="hint">
            From {recent.length} {recent.length === 1 ? 'report' : 'reports'} over the last 30 days, by {sums.reporters.join(', ')}
            {reports.data?.has_more && recent.length === reports.data.data.length ? ` (the newest ${READ})` : ''}.
          </p>
          {sums.failures.length === 0 ? (
            <p className="notice">No failed session was detailed: every reported session succeeded, or the reporters gave no details.</p>
          ) : (
            <ListTable
              cards
              caption={`TLS failures delivering to ${domain.name}, by receiving MX host and reason`}
              className="tls-failures"
              rows={sums.failures}
              rowKey={(f) => `${f.mx} ${f.result} ${f.reason ?? ''}`}
              columns={[
                { header: 'Receiving MX', cell: (f) => <code className="cell-code">{f.mx}</code> },
                { header: 'Reason', cell: (f) => f.result },
                { header: 'Details', cell: (f) => (f.reason ? <code className="cell-code">{f.reason}</code> : <span className="hint">none given</span>) },
                { header: 'Failed sessions', cell: (f) => f.sessions.toLocaleString(), className: 'number' },
                { header: 'Reported by', cell: (f) => [...f.reporters].join(', ') },
              ]}
            />
          )}
        </>
      )}
    </section>
  );
}
