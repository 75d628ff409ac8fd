// The overview: what the account's mail did over the last 24 hours, 7 or 30 days (GET
// /emails/metrics, the SDK's emails.metrics: totals and one row per hour or day), the queue
// now (GET /queue) and the latest failures (GET /emails), each linking to its own page.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { type Answer, api, type Item, type List, type Session } from '../api';
import { TimeChart } from '../chart';
import { ErrorMessage, formatAge, formatTime } from '../components';
import { follow } from '../router';

type MetricsAnswer = Answer<'/emails/metrics'>;
type MetricName = MetricsAnswer['metrics'][number];
const COUNTS = ['sent', 'delivered', 'bounced', 'complained', 'opened', 'clicked'] as const satisfies readonly MetricName[];
type Count = (typeof COUNTS)[number];
const RATES = ['delivery_rate', 'bounce_rate', 'complaint_rate', 'open_rate', 'click_rate'] as const satisfies readonly MetricName[];
/** The figures metricsPath asks for: the document has each metric optional, as only those asked for are answered. */
type Figures = Required<Pick<MetricsAnswer['totals'], Count | (typeof RATES)[number]>>;
/** With `dimensions=period` (metricsPath), a row per period. */
type Metrics = Omit<MetricsAnswer, 'totals' | 'data'> & { totals: Figures; data: (Figures & { period: string })[] };
type EmailSummary = Item<'/emails'>;

const LABELS: Record<Count, string> = {
  sent: 'Sent',
  delivered: 'Delivered',
  bounced: 'Bounced',
  complained: 'Complained',
  opened: 'Opened',
  clicked: 'Clicked',
};
/** Which rate goes under which total. */
const RATE_OF: Partial<Record<Count, { rate: (typeof RATES)[number]; of: string }>> = {
  delivered: { rate: 'delivery_rate', of: 'of sent' },
  bounced: { rate: 'bounce_rate', of: 'of sent' },
  complained: { rate: 'complaint_rate', of: 'of delivered' },
  opened: { rate: 'open_rate', of: 'of delivered' },
  clicked: { rate: 'click_rate', of: 'of delivered' },
};
// Distinguishable lines, also for the common colour-vision deficiencies (Okabe–Ito palette).
const COLORS: Record<Count, string> = {
  sent: '#0072b2',
  delivered: '#009e73',
  bounced: '#d55e00',
  complained: '#cc79a7',
  opened: '#e69f00',
  clicked: '#56b4e9',
};

const PERIODS = [
  { key: '24h', label: '24 hours', heading: 'the last 24 hours' },
  { key: '7d', label: '7 days', heading: 'the last 7 days' },
  { key: '30d', label: '30 days', heading: 'the last 30 days' },
] as const;
type PeriodKey = (typeof PERIODS)[number]['key'];

const DAY_MS = 24 * 3600 * 1000;
const localDate = (at: Date) => `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}`;

/** The metrics query of a period: hours of the last 24 h, or whole days in the browser's time zone. */
function metricsPath(period: PeriodKey): string {
  const now = new Date();
  const query = new URLSearchParams({ dimensions: 'period', metrics: [...COUNTS, ...RATES].join(',') });
  if (period === '24h') {
    query.set('granularity', 'hourly');
    query.set('start_date', new Date(now.getTime() - DAY_MS).toISOString());
  } else {
    query.set('granularity', 'daily');
    query.set('timezone', Intl.DateTimeFormat().resolvedOptions().timeZone);
    query.set('start_date', localDate(new Date(now.getTime() - ((period === '7d' ? 7 : 30) - 1) * DAY_MS)));
  }
  return `/emails/metrics?${query}`;
}

const REFRESH_MS = 10_000;

export function OverviewPage() {
  // The shell has the session (it is not rendered without one).
  const session = useQueryClient().getQueryData<Session>(['session'])!;
  const [period, setPeriod] = useState<PeriodKey>('24h');
  const metrics = useQuery({ queryKey: ['overview', 'metrics', period], queryFn: () => api<Metrics>('GET', metricsPath(period)), refetchInterval: REFRESH_MS });
  const queue = useQuery({ queryKey: ['overview', 'queue'], queryFn: () => api<Answer<'/queue'>>('GET', '/queue?limit=1'), refetchInterval: REFRESH_MS });
  const failures = useQuery({ queryKey: ['overview', 'failures'], queryFn: recentFailures, refetchInterval: REFRESH_MS });
  const anyEmail = useQuery({ queryKey: ['overview', 'any-email'], queryFn: () => api<List<EmailSummary>>('GET', '/emails?limit=1') });
  const heading = PERIODS.find((p) => p.key === period)!.heading;

  if (anyEmail.data && anyEmail.data.data.length === 0) return <FirstSteps session={session} />;
  return (
    <>
      <h1>Overview</h1>
      <section aria-labelledby="figures-heading" className="overview-figures">
        <div className="overview-head">
          <h2 id="figures-heading">Emails over {heading}</h2>
          <fieldset className="segmented">
            <legend className="visually-hidden">Period</legend>
            {PERIODS.map((p) => (
              <button key={p.key} type="button" className="secondary small" aria-pressed={p.key === period} onClick={() => setPeriod(p.key)}>
                {p.label}
              </button>
            ))}
          </fieldset>
        </div>
        <ErrorMessage error={metrics.error} />
        {metrics.data && <Figures metrics={metrics.data} heading={heading} />}
      </section>
      <div className="overview-boxes">
        <section aria-labelledby="queue-heading" className="panel">
          <h2 id="queue-heading">Queue now</h2>
          <ErrorMessage error={queue.error} />
          {queue.data && <QueueBox queue={queue.data} />}
        </section>
        <section aria-labelledby="failures-heading" className="panel">
          <h2 id="failures-heading">Recent failures</h2>
          <ErrorMessage error={failures.error} />
          {failures.data && <FailureList emails={failures.data} />}
        </section>
      </div>
    </>
  );
}

function Figures({ metrics, heading }: { metrics: Metrics; heading: string }) {
  const hourly = metrics.granularity === 'hourly';
  const chart = useMemo(() => {
    const times = metrics.data.map((row) => (hourly ? new Date(row.period) : new Date(`${row.period}T00:00:00`)));
    const labels = times.map((t) =>
      hourly
        ? t.toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' })
        : t.toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: 'numeric' }),
    );
    const series = COUNTS.map((c) => ({ label: LABELS[c], color: COLORS[c], values: metrics.data.map((row) => row[c]) }));
    return { times, labels, series };
  }, [metrics, hourly]);
  return (
    <>
      <dl className="totals">
        {COUNTS.map((c) => {
          const rate = RATE_OF[c];
          return (
            <div key={c} className="total">
              <dt>{LABELS[c]}</dt>
              <dd>
                <span className="total-count">{metrics.totals[c].toLocaleString()}</span>
                {rate && (
                  <span className="total-rate">
                    {metrics.totals[rate.rate]}% {rate.of}
                  </span>
                )}
              </dd>
            </div>
          );
        })}
      </dl>
      <TimeChart
        title={`Emails ${hourly ? 'per hour' : 'per day'} over ${heading}`}
        times={chart.times}
        timeLabels={chart.labels}
        periodSeconds={hourly ? 3600 : 86_400}
        series={chart.series}
      />
    </>
  );
}

function QueueBox({ queue }: { queue: Answer<'/queue'> }) {
  return (
    <>
      <dl className="facts">
        <dt>Due</dt>
        <dd>{queue.counts.due}</dd>
        <dt>Deferred</dt>
        <dd>{queue.counts.deferred}</dd>
        <dt>Oldest</dt>
        <dd>{queue.total > 0 ? formatAge(queue.oldest_age_seconds) : '—'}</dd>
      </dl>
      <p>
        {queue.total === 0 ? 'Nothing is waiting. ' : `${queue.total} waiting in all. `}
        <a href="/dashboard/queue" onClick={follow('/queue')}>
          Open the queue
        </a>
      </p>
    </>
  );
}

const FAILED: EmailSummary['last_event'][] = ['bounced', 'failed'];

/**
 * The latest bounced and failed emails: asked for with GET /emails's `last_event` filter, and
 * checked here too, so that a Postline whose list has no such filter still shows only failures
 * (among its newest emails).
 */
async function recentFailures(): Promise<EmailSummary[]> {
  const lists = await Promise.all(FAILED.map((event) => api<List<EmailSummary>>('GET', `/emails?last_event=${event}&limit=100`)));
  const seen = new Set<string>();
  return lists
    .flatMap((l) => l.data)
    .filter((e) => FAILED.includes(e.last_event) && !seen.has(e.id) && seen.add(e.id))
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, 5);
}

function FailureList({ emails }: { emails: EmailSummary[] }) {
  if (emails.length === 0) return <p>No bounced or failed email lately.</p>;
  return (
    <ul className="failures">
      {emails.map((e) => (
        <li key={e.id}>
          <a href={`/dashboard/emails/${e.id}`} onClick={follow(`/emails/${e.id}`)}>
            {e.subject || '(no subject)'}
          </a>
          <span className={`status status-${e.last_event}`}>{e.last_event}</span>
          <span className="hint">
            to {e.to.join(', ')} · {formatTime(e.created_at)}
          </span>
        </li>
      ))}
    </ul>
  );
}

function FirstSteps({ session }: { session: Session }) {
  return (
    <>
      <h1>Overview</h1>
      <section className="panel first-steps" aria-labelledby="first-steps-heading">
        <h2 id="first-steps-heading">Nothing sent yet</h2>
        {session.sandbox ? (
          <p>
            This Postline is a sandbox: nothing leaves the machine. Create an API key and send an email from any domain; it shows up under{' '}
            <a href="/dashboard/captured" onClick={follow('/captured')}>
              Captured mail
            </a>{' '}
            and its figures here.
          </p>
        ) : (
          <p>Figures of what you send appear here. To send your first email:</p>
        )}
        <ol>
          {!session.sandbox && (
            <li>
              <a href="/dashboard/domains" onClick={follow('/domains')}>
                Add your domain
              </a>{' '}
              and publish its DNS records.
            </li>
          )}
          <li>
            <a href="/dashboard/api-keys" onClick={follow('/api-keys')}>
              Create an API key
            </a>
            .
          </li>
          <li>
            Send with the <code>resend</code> SDK or <code>POST /emails</code>, pointing it at this Postline.
          </li>
        </ol>
        {!session.sandbox && (
          <p className="hint">
            To try Postline without a domain, start it in sandbox mode (<code>POSTLINE_SANDBOX=true</code>): it captures mail instead of delivering it. Emails
            to delivered@, bounced@ and complained@resend.dev produce those outcomes without leaving the machine either way.
          </p>
        )}
      </section>
    </>
  );
}
