// A domain's DMARC on its page (issue 36): who sent mail in its name over the last 30 days, by
// the aggregate reports receivers mailed to Postline (GET /domains/:id/dmarc-sources): a chart
// and a table of the source addresses, split into Postline's own, other known senders (mail
// from elsewhere that passed DMARC) and unknown senders (mail from elsewhere that failed); the
// share that passed; the policy the domain could move to, said plainly; and the reports
// themselves (GET /domains/:id/dmarc-reports), each opened to its rows (…/:reportId). Loaded
// lazily (domain-reports.tsx), with the chart's library.
import { useQuery } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { type Answer, api, type Domain, type Item, type List } from '../api';
import { ErrorMessage, formatTime } from '../components';
import { ListTable, PagedView, usePagedList } from '../list-table';
import { SOURCE_COLORS, type SourceBar, SourcesChart } from './domain-dmarc-chart';
import { percent } from './report-table';

type Sources = Answer<'/domains/{id}/dmarc-sources'>;
type Source = Sources['data'][number];
type DmarcReport = Item<'/domains/{id}/dmarc-reports'>;
type DmarcReportDetail = Answer<'/domains/{id}/dmarc-reports/{reportId}'>;
type ReportRow = DmarcReportDetail['rows'][number];

/** The share of messages that must pass DMARC before a stricter policy is advised. */
const SAFE_PASS_RATE = 0.99;
/** Sources drawn one by one in the chart; the others are one bar. */
const CHARTED = 10;

const apiPath = (domainId: string) => `/domains/${encodeURIComponent(domainId)}`;

export function DmarcSection({ domain }: { domain: Domain }) {
  const base = apiPath(domain.id);
  const sources = useQuery({ queryKey: ['domain', domain.id, 'dmarc-sources'], queryFn: () => api<Sources>('GET', `${base}/dmarc-sources`) });
  // The newest report: the policy receivers found published.
  const newest = useQuery({
    queryKey: ['domain', domain.id, 'dmarc-reports', 'newest'],
    queryFn: () => api<List<DmarcReport>>('GET', `${base}/dmarc-reports?limit=1`),
  });
  const dmarcRecord = domain.recommended_records?.find((r) => r.record === 'DMARC');
  return (
    <section aria-labelledby="dmarc-title" className="dmarc">
      <h2 id="dmarc-title">DMARC</h2>
      <p>
        Receivers that check DMARC mail a daily report of the mail they got in {domain.name}'s name to the address in the DMARC record's <code>rua</code>
        {dmarcRecord ? ' (the record above sends them to Postline)' : ''}. Postline reads them: who sent, and whether their mail passed.
      </p>
      <ErrorMessage error={sources.error ?? newest.error} />
      {(sources.isPending || newest.isPending) && !sources.error && !newest.error && <p className="loading">Loading the DMARC reports…</p>}
      {sources.data && newest.data && <DmarcSummary domain={domain} sources={sources.data} newest={newest.data.data[0]} />}
      <DmarcReports domainId={domain.id} />
    </section>
  );
}

function DmarcSummary({ domain, sources, newest }: { domain: Domain; sources: Sources; newest: DmarcReport | undefined }) {
  const rows = sources.data;
  const total = rows.reduce((n, s) => n + s.messages, 0);
  const passing = rows.reduce((n, s) => n + s.passing, 0);
  const bars = useMemo(() => chartBars(rows), [rows]);
  const dmarcRecord = domain.recommended_records?.find((r) => r.record === 'DMARC');
  if (total === 0) {
    return (
      <p className="notice advice" data-advice="empty">
        {newest
          ? `No reports over the last 30 days (the last one covered ${formatTime(newest.end)}): receivers report only when they received mail from ${domain.name}. `
          : 'No reports yet: publish the DMARC record above (its rua sends reports to Postline). Receivers report once a day about the mail they received. '}
      </p>
    );
  }
  const postline = sum(
    rows.filter((s) => s.postline),
    'messages',
  );
  const known = sum(
    rows.filter((s) => !s.postline),
    'passing',
  );
  const unknown = total - postline - known;
  return (
    <>
      <Advice domainName={domain.name} total={total} passing={passing} policy={newest?.policy.p ?? null} recordValue={dmarcRecord?.value} sources={rows} />
      <dl className="figures dmarc-figures">
        <div>
          <dt>Messages</dt>
          <dd data-figure="messages">{total.toLocaleString()}</dd>
        </div>
        <div>
          <dt>Pass rate</dt>
          <dd data-figure="pass-rate">{percent(passing, total)}</dd>
        </div>
        <div>
          <dt>Sources</dt>
          <dd data-figure="sources">{rows.length.toLocaleString()}</dd>
        </div>
        <div>
          <dt>Policy</dt>
          <dd data-figure="policy">{newest?.policy.p ? `p=${newest.policy.p}` : '—'}</dd>
        </div>
      </dl>
      <h3>Sources over the last 30 days</h3>
      <figure className="sources-figure">
        <SourcesChart bars={bars} />
        <figcaption>
          <ul className="legend">
            <li>
              <span className="swatch" style={{ background: SOURCE_COLORS.postline }} /> <strong>Postline</strong>: {postline.toLocaleString()} messages sent by
              Postline itself (its outbound addresses).
            </li>
            <li>
              <span className="swatch" style={{ background: SOURCE_COLORS.known }} /> <strong>Other known senders</strong>: {known.toLocaleString()} messages
              from other servers that passed DMARC, so were signed or authorized for {domain.name} (a help desk, a CRM, your own mail server).
            </li>
            <li>
              <span className="swatch" style={{ background: SOURCE_COLORS.unknown }} /> <strong>Unknown senders</strong>: {unknown.toLocaleString()} messages
              from other servers that failed DMARC: forwarded mail, a service not set up yet, or someone forging your domain.
            </li>
          </ul>
          <span className="hint">
            {bars.length < rows.length
              ? `The ${CHARTED - 1} largest sources, and the others as one bar; every source is in the table below.`
              : 'Every source is in the table below.'}
          </span>
        </figcaption>
      </figure>
      <ListTable
        cards
        caption={`Sources of mail from ${domain.name} over the last 30 days`}
        className="dmarc-sources"
        rows={rows}
        rowKey={(s) => s.source_ip}
        columns={[
          { header: 'Source IP', cell: (s) => <code className="cell-code">{s.source_ip}</code> },
          { header: 'Messages', cell: (s) => s.messages.toLocaleString(), className: 'number' },
          { header: 'Passing', cell: (s) => percent(s.passing, s.messages), className: 'number' },
          { header: 'Sender', cell: (s) => <SenderKind source={s} /> },
        ]}
      />
      {sources.has_more && <p className="hint">The {rows.length} sources with the most messages.</p>}
    </>
  );
}

const sum = (rows: Source[], field: 'messages' | 'passing') => rows.reduce((n, s) => n + s[field], 0);

function SenderKind({ source: s }: { source: Source }) {
  if (s.postline) return <span className="status status-postline">Postline</span>;
  if (s.passing === s.messages) return <span className="status status-known">other known sender</span>;
  if (s.passing === 0) return <span className="status status-unknown">unknown sender</span>;
  return (
    <>
      <span className="status status-known">other known sender</span> <span className="hint">({(s.messages - s.passing).toLocaleString()} failed)</span>
    </>
  );
}

function chartBars(rows: Source[]): SourceBar[] {
  const barOf = (s: Source): SourceBar => ({
    label: s.source_ip,
    postline: s.postline ? s.messages : 0,
    known: s.postline ? 0 : s.passing,
    unknown: s.postline ? 0 : s.messages - s.passing,
  });
  if (rows.length <= CHARTED) return rows.map(barOf);
  const rest = rows.slice(CHARTED - 1).map(barOf);
  return [
    ...rows.slice(0, CHARTED - 1).map(barOf),
    {
      label: `${rest.length} other sources`,
      postline: rest.reduce((n, b) => n + b.postline, 0),
      known: rest.reduce((n, b) => n + b.known, 0),
      unknown: rest.reduce((n, b) => n + b.unknown, 0),
    },
  ];
}

/** The policy the domain could move to, by the share of its mail that passes. */
function Advice(props: { domainName: string; total: number; passing: number; policy: string | null; recordValue: string | undefined; sources: Source[] }) {
  const { total, passing, policy } = props;
  const passes = passing / total >= SAFE_PASS_RATE;
  const failingPostline = props.sources.filter((s) => s.postline && s.passing < s.messages);
  if (!passes) {
    return (
      <div className="notice advice" data-advice="fix-sources">
        <p>
          <strong>
            {percent(total - passing, total)} of messages fail DMARC: find those sources before tightening the policy
            {policy && policy !== 'none' ? ` (it is p=${policy} now: receivers ${policy === 'reject' ? 'refuse' : 'put in spam'} the mail that fails)` : ''}.
          </strong>
        </p>
        <p>
          The unknown senders are in the table below. If one of them is yours (a newsletter tool, a help desk), have it sign with DKIM for {props.domainName} or
          add it to your SPF record; mail forwarded by mailing lists fails too and can be left alone.
          {failingPostline.length > 0 && ' Some of the mail Postline sent failed: check that the DKIM and SPF records above are verified.'}
        </p>
      </div>
    );
  }
  const all = passing === total ? 'All your mail passes DMARC' : `${percent(passing, total)} of your mail passes DMARC`;
  const next = policy === 'quarantine' ? 'reject' : policy === 'reject' ? null : 'quarantine';
  if (!next) {
    return (
      <p className="notice advice" data-advice="strictest">
        {all}, and your policy is already p=reject, the strictest: receivers refuse mail that fails.
      </p>
    );
  }
  const record = props.recordValue && /\bp=\w+/.test(props.recordValue) ? props.recordValue.replace(/\bp=\w+/, `p=${next}`) : undefined;
  return (
    <div className="notice advice" data-advice={`move-to-${next}`}>
      <p>
        <strong>
          {all}: you can move to p={next}.
        </strong>{' '}
        {next === 'quarantine'
          ? 'Receivers then put mail that fails DMARC in spam: what others send in your name no longer reaches the inbox.'
          : 'Receivers then refuse mail that fails DMARC: no one else can send in your name.'}
      </p>
      {record && (
        <p>
          Publish <code className="advice-record">{record}</code> as the TXT record <code>_dmarc</code>, then keep an eye on this page.
        </p>
      )}
    </div>
  );
}

/** The reports received, newest first, each opened in place to its rows. */
function DmarcReports({ domainId }: { domainId: string }) {
  const base = apiPath(domainId);
  const paged = usePagedList<DmarcReport>(
    ['domain', domainId, 'dmarc-reports', 'list'],
    (after) => `${base}/dmarc-reports?limit=20${after ? `&after=${after}` : ''}`,
  );
  const [open, setOpen] = useState<string | null>(null);
  const detailId = useId();
  return (
    <>
      <h3>Reports received</h3>
      {paged.list.isPending && <p className="loading">Loading…</p>}
      <PagedView paged={paged} empty={<p className="hint">None yet.</p>}>
        {(rows) => (
          <ListTable
            cards
            rows={rows}
            rowKey={(r) => r.id}
            caption="DMARC reports received"
            className="dmarc-reports"
            columns={[
              { header: 'Reporter', cell: (r) => r.reporter },
              { header: 'Period', cell: (r) => <Period begin={r.begin} end={r.end} /> },
              { header: 'Messages', cell: (r) => r.messages.toLocaleString(), className: 'number' },
              { header: 'Passing', cell: (r) => `${r.passing.toLocaleString()} (${percent(r.passing, r.messages)})`, className: 'number' },
              {
                header: 'Rows',
                hideHeader: true,
                cell: (r) => (
                  <button
                    type="button"
                    className="secondary small"
                    aria-expanded={open === r.id}
                    aria-controls={open === r.id ? detailId : undefined}
                    onClick={() => setOpen(open === r.id ? null : r.id)}
                  >
                    {open === r.id ? 'Hide rows' : 'Show rows'}
                    <span className="visually-hidden">
                      {' '}
                      of the report from {r.reporter}, {formatTime(r.begin)}
                    </span>
                  </button>
                ),
              },
            ]}
          />
        )}
      </PagedView>
      {open && <ReportDetail id={detailId} domainId={domainId} reportId={open} />}
    </>
  );
}

/** A report's period as its days: reporters count whole days in UTC, so that is how they are shown. */
function Period({ begin, end }: { begin: string; end: string }) {
  const day = (value: string) => new Date(value).toLocaleDateString(undefined, { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' });
  const first = day(begin);
  const last = day(end);
  return (
    <span className="nowrap">
      {first === last ? first : `${first} – ${last}`} <span className="hint">UTC</span>
    </span>
  );
}

function ReportDetail({ id, domainId, reportId }: { id: string; domainId: string; reportId: string }) {
  const report = useQuery({
    queryKey: ['domain', domainId, 'dmarc-reports', reportId],
    queryFn: () => api<DmarcReportDetail>('GET', `${apiPath(domainId)}/dmarc-reports/${encodeURIComponent(reportId)}`),
  });
  const r = report.data;
  return (
    <section id={id} className="panel wide report-detail" aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>{r ? `Report ${r.report_id} from ${r.reporter}` : 'Report'}</h4>
      <ErrorMessage error={report.error} />
      {report.isPending && <p className="loading">Loading…</p>}
      {r && (
        <>
          <p>
            {formatTime(r.begin)} to {formatTime(r.end)}, about {r.policy_domain}, policy found: {policyText(r.policy)}.{' '}
            {r.reporter_email && <span className="hint">Sent by {r.reporter_email}.</span>}
          </p>
          {r.problems.length > 0 && (
            <div className="notice">
              <p>Parts of this report could not be read (the rest is shown):</p>
              <ul>
                {r.problems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            </div>
          )}
          <ListTable
            cards
            caption={`Rows of report ${r.report_id}`}
            className="report-rows"
            rows={r.rows}
            rowKey={(_row, i) => i}
            columns={[
              { header: 'Source IP', cell: (row) => <code className="cell-code">{row.source_ip}</code> },
              { header: 'Messages', cell: (row) => row.count.toLocaleString(), className: 'number' },
              { header: 'DMARC', cell: (row) => (passed(row) ? 'pass' : 'fail') },
              { header: 'DKIM aligned', cell: (row) => row.dkim_aligned ?? '—' },
              { header: 'SPF aligned', cell: (row) => row.spf_aligned ?? '—' },
              { header: 'Disposition', cell: (row) => row.disposition ?? '—' },
              { header: 'Checks', cell: (row) => <Checks row={row} /> },
            ]}
          />
        </>
      )}
    </section>
  );
}

const passed = (row: ReportRow) => row.dkim_aligned === 'pass' || row.spf_aligned === 'pass';

function policyText(p: DmarcReportDetail['policy']): string {
  const parts = [p.p && `p=${p.p}`, p.sp && `sp=${p.sp}`, p.pct !== null && `pct=${p.pct}`].filter(Boolean);
  return parts.length ? parts.join('; ') : 'none given';
}

function Checks({ row }: { row: ReportRow }) {
  return (
    <span className="hint">
      {row.header_from && <span className="block">From {row.header_from}</span>}
      {row.auth_results.dkim.map((d) => (
        <span className="block" key={`dkim ${d.domain} ${d.selector}`}>
          DKIM {d.domain}
          {d.selector ? ` (${d.selector})` : ''}: {d.result}
        </span>
      ))}
      {row.auth_results.spf.map((s) => (
        <span className="block" key={`spf ${s.domain} ${s.scope}`}>
          SPF {s.domain}: {s.result}
        </span>
      ))}
      {row.overrides.map((o) => (
        <span className="block" key={o.type}>
          Override: {o.type}
          {o.comment ? ` (${o.comment})` : ''}
        </span>
      ))}
    </span>
  );
}
