// Email metrics (the SDK's `EmailMetric` counts): which recorded event counts as which metric,
// the rollup the event writer keeps in the statement that records the events (email_metrics,
// migrations 0028 and 0038: per account, hour, metric, sending domain and broadcast), and the
// one reader of the figures, which sums them into periods and groups (per email, from the
// events themselves). GET /emails/metrics (emails/get-email-metrics.ts) and through it the
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

/** email_metrics' "none" for domain_id and broadcast_id, which are part of its key (0038). */
const NONE = '00000000-0000-0000-0000-000000000000';

/**
 * The metrics event `r` (a row with type, email_id, bounce_type) counts as, as a VALUES list
 * of one column, either null: its own, and its bounce kind or its first open or click.
 * `first(type)` is the SQL condition that `r` is its email's first event of that type.
 */
function metricsOfEvent(first: (type: string) => string): string {
  const main = Object.entries(METRIC_OF_EVENT)
    .filter(([, metric]) => metric)
    .map(([type, metric]) => `WHEN '${type}' THEN '${metric}'`)
    .join(' ');
  return `(VALUES
                (CASE r.type ${main} END),
                (CASE WHEN r.type = 'email.bounced'
                      THEN CASE r.bounce_type WHEN 'Permanent' THEN 'bounced_permanent' WHEN 'Transient' THEN 'bounced_transient'
                                              ELSE 'bounced_undetermined' END
                      WHEN r.type = 'email.opened' AND ${first('email.opened')} THEN 'unique_opened'
                      WHEN r.type = 'email.clicked' AND ${first('email.clicked')} THEN 'unique_clicked' END))`;
}

/**
 * A data-modifying CTE body adding the events of `recorded` to email_metrics: `recorded` names
 * a CTE of the same statement returning (account_id, type, email_id, bounce_type), the rows
 * just inserted into events (so `events` itself, read here, does not hold them yet: an open is
 * the email's first when `events` has no open of it). `emails` names where the events' emails
 * are found, by id, with their domain_id and broadcast_id: the table, or a CTE of the same
 * statement inserting them; an event of none (received mail) counts for no domain and no
 * broadcast. Rows are locked in key order.
 */
export function countEventsCte(recorded: string, emails = 'emails'): string {
  const first = (type: string) => `NOT EXISTS (SELECT 1 FROM events o WHERE o.email_id = r.email_id AND o.type = '${type}')`;
  return `INSERT INTO email_metrics AS m (account_id, hour, metric, domain_id, broadcast_id, shard, count)
       SELECT r.account_id, date_trunc('hour', now()), x.metric, COALESCE(e.domain_id, '${NONE}'), COALESCE(e.broadcast_id, '${NONE}'),
              pg_backend_pid() % ${SHARDS}, count(*)
         FROM ${recorded} r
              LEFT JOIN ${emails} e ON e.id = r.email_id
              CROSS JOIN LATERAL ${metricsOfEvent(first)} AS x(metric)
        WHERE x.metric IS NOT NULL
        GROUP BY 1, 2, 3, 4, 5, 6
        ORDER BY 1, 2, 3, 4, 5, 6
       ON CONFLICT (account_id, hour, metric, domain_id, broadcast_id, shard) DO UPDATE SET count = m.count + EXCLUDED.count`;
}

/**
 * Counts an unsubscribe made from an email (a broadcast's link: the preference page or the
 * one-click List-Unsubscribe POST), once per contact and broadcast (audience/ decides which),
 * for the broadcast and the domain its email to that contact was sent from.
 */
export async function countUnsubscribe(q: Queryable, accountId: string, broadcastId: string, contactId: string): Promise<void> {
  await q.query(
    `INSERT INTO email_metrics AS m (account_id, hour, metric, domain_id, broadcast_id, shard, count)
     VALUES ($1, date_trunc('hour', now()), 'unsubscribed',
             COALESCE((SELECT domain_id FROM emails WHERE broadcast_id = $2 AND contact_id = $3 AND account_id = $1), '${NONE}'),
             $2, pg_backend_pid() % ${SHARDS}, 1)
     ON CONFLICT (account_id, hour, metric, domain_id, broadcast_id, shard) DO UPDATE SET count = m.count + 1`,
    [accountId, broadcastId, contactId],
  );
}

/** What an events INSERT of the writer returns for countEventsCte. */
export const RECORDED_COLUMNS = `account_id, type, email_id, data->'bounce'->>'type' AS bounce_type`;

export type Granularity = 'hourly' | 'daily' | 'weekly' | 'monthly';

/** What figures can be broken down by besides the period. */
export type Breakdown = 'domain' | 'broadcast' | 'email';

/** With the `email` breakdown and no email ids, the emails counted: the newest this many sent in the range. */
export const MAX_EMAILS_BROKEN_DOWN = 1000;

interface MetricsQuery {
  accountId: string;
  /** The range [start, end): hours that begin in it are counted (rounded out to whole hours). */
  start: Date;
  end: Date;
  metrics: readonly CountMetric[];
  /** Break the range into periods of this size, in `timeZone`; none: totals only. */
  periods?: { granularity: Granularity; timeZone: string };
  /** Break the figures down by these too. */
  by?: readonly Breakdown[];
  /** Count only these domains' / broadcasts' / emails' figures (ids of other accounts count nothing). */
  only?: { domainIds?: string[]; broadcastIds?: string[]; emailIds?: string[] };
}

export interface MetricsRow {
  period?: string;
  domainId?: string;
  domainName?: string;
  broadcastId?: string;
  broadcastName?: string;
  emailId?: string;
  counts: Record<CountMetric, number>;
}

interface MetricsFigures {
  totals: Record<CountMetric, number>;
  /** With periods or a breakdown: one row per period (every period of the range, in order) and group seen in the range. */
  rows?: MetricsRow[];
}

const TRUNC: Record<Granularity, string> = { hourly: 'hour', daily: 'day', weekly: 'week', monthly: 'month' };

/**
 * Sums the figures over the range, per period and group when asked. An hourly period is named
 * by its UTC instant (ISO 8601); a day, week (from Monday) or month by its first date in
 * `timeZone`. Figures come from email_metrics, except per email (the `email` breakdown or
 * email ids), which are counted from the events of those emails, so carry no `unsubscribed`
 * (no email event). The totals are of the filters alone: a breakdown does not change them.
 */
export async function readEmailMetrics(q: Queryable, query: MetricsQuery): Promise<MetricsFigures> {
  const by = query.by ?? [];
  const rows = await sumRows(q, query, by, query.periods);
  if (!query.periods && by.length === 0) return { totals: rows[0]!.counts };
  // Per email without email ids, the rows count only the newest emails: the totals are counted apart.
  if (by.includes('email') && !query.only?.emailIds) return { totals: (await sumRows(q, query, [], undefined))[0]!.counts, rows };
  const totals = zero(query.metrics);
  for (const row of rows) for (const m of query.metrics) totals[m] += row.counts[m];
  return { totals, rows };
}

function zero(metrics: readonly CountMetric[]): Record<CountMetric, number> {
  return Object.fromEntries(metrics.map((m) => [m, 0])) as Record<CountMetric, number>;
}

/** The SQL of rows (hour, domain_id, broadcast_id, email_id, metric, count) the query counts. */
function source(query: MetricsQuery, perEmail: boolean, param: (value: unknown) => string): string {
  const { domainIds, broadcastIds, emailIds } = query.only ?? {};
  const account = param(query.accountId);
  const range = (column: string) => `${column} >= date_trunc('hour', ${param(query.start)}::timestamptz) AND ${column} < ${param(query.end)}`;
  const metrics = param(query.metrics);
  if (!perEmail && !emailIds) {
    const filters = [domainIds && `domain_id = ANY(${param(domainIds)}::uuid[])`, broadcastIds && `broadcast_id = ANY(${param(broadcastIds)}::uuid[])`].filter(
      Boolean,
    );
    return `SELECT hour, domain_id, broadcast_id, '${NONE}'::uuid AS email_id, metric, count FROM email_metrics
             WHERE account_id = ${account} AND ${range('hour')} AND metric = ANY(${metrics}::text[])${filters.map((f) => ` AND ${f}`).join('')}`;
  }
  // The emails: those asked for, or the newest sent in the range.
  const emails = emailIds
    ? `SELECT unnest(${param(emailIds)}::uuid[]) AS id`
    : `SELECT id FROM emails WHERE account_id = ${account} AND ${range('created_at')}
        ORDER BY created_at DESC, id DESC LIMIT ${MAX_EMAILS_BROKEN_DOWN}`;
  const filters = [
    domainIds && `e.domain_id = ANY(${param(domainIds)}::uuid[])`,
    broadcastIds && `e.broadcast_id = ANY(${param(broadcastIds)}::uuid[])`,
  ].filter(Boolean);
  const first = (type: string) => `NOT EXISTS (SELECT 1 FROM events o WHERE o.email_id = r.email_id AND o.type = '${type}' AND o.id < r.id)`;
  return `SELECT date_trunc('hour', r.created_at) AS hour, COALESCE(e.domain_id, '${NONE}') AS domain_id,
                 COALESCE(e.broadcast_id, '${NONE}') AS broadcast_id, r.email_id, x.metric, 1 AS count
            FROM (SELECT ev.id, ev.type, ev.email_id, ev.created_at, ev.data->'bounce'->>'type' AS bounce_type
                    FROM events ev WHERE ev.email_id IN (${emails}) AND ev.account_id = ${account}
                     AND ev.created_at >= date_trunc('hour', ${param(query.start)}::timestamptz)) r
                 LEFT JOIN emails e ON e.id = r.email_id
                 CROSS JOIN LATERAL ${metricsOfEvent(first)} AS x(metric)
           WHERE date_trunc('hour', r.created_at) < ${param(query.end)} AND x.metric = ANY(${metrics}::text[])${filters.map((f) => ` AND ${f}`).join('')}`;
}

const GROUP_COLUMN: Record<Breakdown, string> = { domain: 'domain_id', broadcast: 'broadcast_id', email: 'email_id' };

/** Sums the query's figures per period (when given) and group of `by`, one row each (with neither, one row: the totals). */
async function sumRows(q: Queryable, query: MetricsQuery, by: readonly Breakdown[], periods: MetricsQuery['periods']): Promise<MetricsRow[]> {
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const src = source(query, by.includes('email') || Boolean(query.only?.emailIds), param);
  // Columns not broken down by are a constant, so every row falls in one group (and joins stay equalities).
  const groupOf = (b: Breakdown) => (by.includes(b) ? GROUP_COLUMN[b] : `'${NONE}'::uuid`);
  const groupColumns = `${groupOf('domain')} AS domain_id, ${groupOf('broadcast')} AS broadcast_id, ${groupOf('email')} AS email_id`;
  let at = `'epoch'::timestamptz`;
  // A function: its parameters are pushed only when the statement uses it.
  let periodList = () => `SELECT ${at} AS at`;
  let label = `NULL::text`;
  if (periods) {
    const unit = TRUNC[periods.granularity];
    const zone = periods.granularity === 'hourly' ? '' : param(periods.timeZone);
    // Hours are bucketed as instants, longer periods by the wall clock of the time zone.
    const bucket = (t: string) => (periods.granularity === 'hourly' ? `date_trunc('hour', ${t})` : `date_trunc('${unit}', ${t} AT TIME ZONE ${zone})`);
    at = bucket('hour');
    periodList = () =>
      `SELECT generate_series(${bucket(`${param(query.start)}::timestamptz`)}, ${bucket(`(${param(query.end)}::timestamptz - interval '1 microsecond')`)}, interval '1 ${unit}') AS at`;
    label = periods.granularity === 'hourly' ? `to_char(c.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')` : `to_char(c.at, 'YYYY-MM-DD')`;
  }
  // Every period for every group seen in the range (one group when not broken down); per email,
  // only the periods it has figures in (up to 1,000 emails times 10,000 periods would be too many).
  const groups =
    by.length === 0
      ? `SELECT '${NONE}'::uuid AS domain_id, '${NONE}'::uuid AS broadcast_id, '${NONE}'::uuid AS email_id`
      : `SELECT DISTINCT domain_id, broadcast_id, email_id FROM sums`;
  const cells = by.includes('email')
    ? `SELECT DISTINCT at, domain_id, broadcast_id, email_id FROM sums`
    : `SELECT p.at, g.domain_id, g.broadcast_id, g.email_id FROM (${periodList()}) p CROSS JOIN (${groups}) g`;
  const rows = await q.query<{
    period: string | null;
    domain_id: string | null;
    domain_name: string | null;
    broadcast_id: string | null;
    broadcast_name: string | null;
    email_id: string | null;
    metric: CountMetric | null;
    n: string | null;
  }>(
    `WITH sums AS (
       SELECT ${at} AS at, ${groupColumns}, metric, sum(count) AS n FROM (${src}) s GROUP BY 1, 2, 3, 4, 5
     ), cells AS (${cells})
     SELECT ${label} AS period, c.domain_id, d.name AS domain_name, c.broadcast_id, b.name AS broadcast_name, c.email_id, s.metric, s.n
       FROM cells c
            LEFT JOIN sums s ON s.at = c.at AND s.domain_id = c.domain_id AND s.broadcast_id = c.broadcast_id AND s.email_id = c.email_id
            LEFT JOIN domains d ON d.id = c.domain_id
            LEFT JOIN broadcasts b ON b.id = c.broadcast_id
            LEFT JOIN emails e ON e.id = c.email_id
      ORDER BY c.at, d.name NULLS LAST, c.domain_id, b.name NULLS LAST, c.broadcast_id, e.created_at DESC, c.email_id`,
    params,
  );
  const out: MetricsRow[] = [];
  let key = '';
  for (const row of rows) {
    const rowKey = `${row.period}|${row.domain_id}|${row.broadcast_id}|${row.email_id}`;
    if (rowKey !== key || out.length === 0) {
      key = rowKey;
      out.push({
        ...(row.period !== null && { period: row.period }),
        ...(row.domain_id !== null && row.domain_id !== NONE && { domainId: row.domain_id }),
        ...(row.domain_name !== null && { domainName: row.domain_name }),
        ...(row.broadcast_id !== null && row.broadcast_id !== NONE && { broadcastId: row.broadcast_id }),
        ...(row.broadcast_name !== null && { broadcastName: row.broadcast_name }),
        ...(row.email_id !== null && row.email_id !== NONE && { emailId: row.email_id }),
        counts: zero(query.metrics),
      });
    }
    if (row.metric !== null) out.at(-1)!.counts[row.metric] = Number(row.n);
  }
  return out;
}

/**
 * Folds the shards of every hour that ended over an hour ago into shard 0 (housekeeping,
 * worker-role.ts), so a month is read from one row per hour, metric, domain and broadcast. Writers only add to
 * the hour their transaction began in, so nothing writes these rows any more; a late one would
 * make a new shard row, folded the next time. Deleting and adding are one statement: a reader
 * sees the sums before or after, never in between. Returns the rows folded.
 */
export async function foldEmailMetricShards(q: Queryable): Promise<number> {
  const rows = await q.query<{ n: number }>(
    `WITH folded AS (
       DELETE FROM email_metrics WHERE hour < date_trunc('hour', now()) - interval '1 hour' AND shard <> 0
       RETURNING account_id, hour, metric, domain_id, broadcast_id, count
     ), added AS (
       INSERT INTO email_metrics AS m (account_id, hour, metric, domain_id, broadcast_id, shard, count)
       SELECT account_id, hour, metric, domain_id, broadcast_id, 0, sum(count) FROM folded GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
       ON CONFLICT (account_id, hour, metric, domain_id, broadcast_id, shard) DO UPDATE SET count = m.count + EXCLUDED.count
     )
     SELECT count(*)::int AS n FROM folded`,
  );
  return rows[0]!.n;
}
