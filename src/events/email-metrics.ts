// Email metrics (the SDK's `EmailMetric` counts): which recorded event counts as which metric,
// the rollup the event writer keeps in the statement that records the events (email_metrics,
// migration 0028: per account, hour and metric), and the one reader of that table, which
// sums it into periods. GET /emails/metrics (emails/get-email-metrics.ts) and through it the
// dashboard's overview read figures only here, so a figure means the same everywhere.
import type { Queryable } from '../db/database.js';
import type { EmailEventType } from './catalogue.js';

/** The counts, in the SDK's order (`EmailMetric` without the rates). */
export const COUNT_METRICS = [
  'received',
  'delivered',
  'complained',
  'suppressed',
  'bounced',
  'bounced_transient',
  'bounced_permanent',
  'bounced_undetermined',
  'opened',
  'clicked',
  'unsubscribed',
  'delivery_delayed',
  'failed',
  'sent',
  'unique_opened',
  'unique_clicked',
] as const;
export type CountMetric = (typeof COUNT_METRICS)[number];

/**
 * The metric each email event counts as; null: counted nowhere. A bounce also counts as
 * bounced_permanent / _transient / _undetermined by its `bounce.type`, and an email's first
 * open and first click as unique_opened / unique_clicked. `unsubscribed` is no email event:
 * countUnsubscribe adds it when a broadcast's unsubscribe link is used.
 * NOTE: coupled with 0028_email_metrics.sql, which counted the events recorded before it.
 */
const METRIC_OF_EVENT = {
  'email.scheduled': null,
  'email.sent': 'sent',
  'email.delivered': 'delivered',
  'email.delivery_delayed': 'delivery_delayed',
  'email.bounced': 'bounced',
  'email.complained': 'complained',
  'email.failed': 'failed',
  'email.suppressed': 'suppressed',
  'email.canceled': null,
  'email.opened': 'opened',
  'email.clicked': 'clicked',
  'email.received': 'received',
} as const satisfies Record<EmailEventType, CountMetric | null>;

/** Concurrent writers add to different rows (0028_email_metrics.sql). */
const SHARDS = 16;

/**
 * A data-modifying CTE body adding the events of `recorded` to email_metrics: `recorded` names
 * a CTE of the same statement returning (account_id, type, email_id, bounce_type), the rows
 * just inserted into events (so `events` itself, read here, does not hold them yet: an open is
 * the email's first when `events` has no open of it). Rows are locked in key order.
 */
export function countEventsCte(recorded: string): string {
  const main = Object.entries(METRIC_OF_EVENT)
    .filter(([, metric]) => metric)
    .map(([type, metric]) => `WHEN '${type}' THEN '${metric}'`)
    .join(' ');
  const first = (type: string) => `r.type = '${type}' AND NOT EXISTS (SELECT 1 FROM events o WHERE o.email_id = r.email_id AND o.type = '${type}')`;
  return `INSERT INTO email_metrics AS m (account_id, hour, metric, shard, count)
       SELECT r.account_id, date_trunc('hour', now()), x.metric, pg_backend_pid() % ${SHARDS}, count(*)
         FROM ${recorded} r
              CROSS JOIN LATERAL (VALUES
                (CASE r.type ${main} END),
                (CASE WHEN r.type = 'email.bounced'
                      THEN CASE r.bounce_type WHEN 'Permanent' THEN 'bounced_permanent' WHEN 'Transient' THEN 'bounced_transient'
                                              ELSE 'bounced_undetermined' END
                      WHEN ${first('email.opened')} THEN 'unique_opened'
                      WHEN ${first('email.clicked')} THEN 'unique_clicked' END)) AS x(metric)
        WHERE x.metric IS NOT NULL
        GROUP BY 1, 2, 3, 4
        ORDER BY 1, 2, 3, 4
       ON CONFLICT (account_id, hour, metric, shard) DO UPDATE SET count = m.count + EXCLUDED.count`;
}

/**
 * Counts an unsubscribe made from an email (a broadcast's link: the preference page or the
 * one-click List-Unsubscribe POST), once per contact and broadcast (audience/ decides which).
 */
export async function countUnsubscribe(q: Queryable, accountId: string): Promise<void> {
  await q.query(
    `INSERT INTO email_metrics AS m (account_id, hour, metric, shard, count)
     VALUES ($1, date_trunc('hour', now()), 'unsubscribed', pg_backend_pid() % ${SHARDS}, 1)
     ON CONFLICT (account_id, hour, metric, shard) DO UPDATE SET count = m.count + 1`,
    [accountId],
  );
}

/** What an events INSERT of the writer returns for countEventsCte. */
export const RECORDED_COLUMNS = `account_id, type, email_id, data->'bounce'->>'type' AS bounce_type`;

export type Granularity = 'hourly' | 'daily' | 'weekly' | 'monthly';

interface MetricsQuery {
  accountId: string;
  /** The range [start, end): hours that begin in it are counted (rounded out to whole hours). */
  start: Date;
  end: Date;
  metrics: readonly CountMetric[];
  /** Break the range into periods of this size, in `timeZone`; none: totals only. */
  periods?: { granularity: Granularity; timeZone: string };
}

interface MetricsFigures {
  totals: Record<CountMetric, number>;
  /** Every period of the range in order, empty ones included; its start as `period`. */
  periods?: { period: string; counts: Record<CountMetric, number> }[];
}

const TRUNC: Record<Granularity, string> = { hourly: 'hour', daily: 'day', weekly: 'week', monthly: 'month' };

/**
 * Sums email_metrics over the range, per period when asked. An hourly period is named by its
 * UTC instant (ISO 8601); a day, week (from Monday) or month by its first date in `timeZone`.
 */
export async function readEmailMetrics(q: Queryable, query: MetricsQuery): Promise<MetricsFigures> {
  const zero = () => Object.fromEntries(query.metrics.map((m) => [m, 0])) as Record<CountMetric, number>;
  const params: unknown[] = [query.accountId, query.start, query.end, query.metrics];
  const where = `account_id = $1 AND hour >= date_trunc('hour', $2::timestamptz) AND hour < $3 AND metric = ANY($4::text[])`;
  if (!query.periods) {
    const rows = await q.query<{ metric: CountMetric; n: string }>(`SELECT metric, sum(count) AS n FROM email_metrics WHERE ${where} GROUP BY metric`, params);
    const totals = zero();
    for (const row of rows) totals[row.metric] = Number(row.n);
    return { totals };
  }
  const { granularity, timeZone } = query.periods;
  const unit = TRUNC[granularity];
  if (granularity !== 'hourly') params.push(timeZone);
  // Hours are bucketed as instants, longer periods by the wall clock of the time zone.
  const bucket = (t: string) => (granularity === 'hourly' ? `date_trunc('hour', ${t})` : `date_trunc('${unit}', ${t} AT TIME ZONE $5)`);
  const label = granularity === 'hourly' ? `to_char(p.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : `to_char(p.at, 'YYYY-MM-DD')`;
  const rows = await q.query<{ period: string; metric: CountMetric | null; n: string | null }>(
    `WITH sums AS (
       SELECT ${bucket('hour')} AS at, metric, sum(count) AS n FROM email_metrics WHERE ${where} GROUP BY 1, 2
     ), periods AS (
       SELECT generate_series(${bucket('$2::timestamptz')}, ${bucket("($3::timestamptz - interval '1 microsecond')")}, interval '1 ${unit}') AS at
     )
     SELECT ${label} AS period, s.metric, s.n FROM periods p LEFT JOIN sums s ON s.at = p.at ORDER BY p.at`,
    params,
  );
  const totals = zero();
  const periods: NonNullable<MetricsFigures['periods']> = [];
  for (const row of rows) {
    if (periods.at(-1)?.period !== row.period) periods.push({ period: row.period, counts: zero() });
    if (row.metric === null) continue;
    const n = Number(row.n);
    periods.at(-1)!.counts[row.metric] = n;
    totals[row.metric] += n;
  }
  return { totals, periods };
}

/**
 * Folds the shards of every hour that ended over an hour ago into shard 0 (housekeeping,
 * worker-role.ts), so a month is read from one row per hour and metric. Writers only add to
 * the hour their transaction began in, so nothing writes these rows any more; a late one would
 * make a new shard row, folded the next time. Deleting and adding are one statement: a reader
 * sees the sums before or after, never in between. Returns the rows folded.
 */
export async function foldEmailMetricShards(q: Queryable): Promise<number> {
  const rows = await q.query<{ n: number }>(
    `WITH folded AS (
       DELETE FROM email_metrics WHERE hour < date_trunc('hour', now()) - interval '1 hour' AND shard <> 0
       RETURNING account_id, hour, metric, count
     ), added AS (
       INSERT INTO email_metrics AS m (account_id, hour, metric, shard, count)
       SELECT account_id, hour, metric, 0, sum(count) FROM folded GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
       ON CONFLICT (account_id, hour, metric, shard) DO UPDATE SET count = m.count + EXCLUDED.count
     )
     SELECT count(*)::int AS n FROM folded`,
  );
  return rows[0]!.n;
}
