// GET /emails/metrics: the account's email counts and rates over a date range, as Resend's
// "Retrieve Metrics" answers them (the SDK's emails.metrics), totals and, with the `period`
// dimension, one row per hour, day, week or month. The figures come from the rollup the event
// writer keeps (events/email-metrics.ts), precise to the hour. The dashboard's overview reads
// this route too. The `domain` and `broadcast` dimensions and filters read the same rollup,
// which counts by sending domain and broadcast; the `email` dimension and filter count the
// events of those emails (the newest 1,000 sent in the range when no ids are given).
import { validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Route } from '../api/route.js';
import { array, constant, number, object, oneOfValues, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import {
  type Breakdown,
  COUNT_METRICS,
  type CountMetric,
  type Granularity,
  MAX_EMAILS_BROKEN_DOWN,
  type MetricsRow,
  readEmailMetrics,
} from '../events/email-metrics.js';

const RATES = ['delivery_rate', 'open_rate', 'click_rate', 'bounce_rate', 'complaint_rate', 'unsubscribe_rate'] as const;
type Rate = (typeof RATES)[number];
const METRICS = [...COUNT_METRICS, ...RATES] as const;
type Metric = (typeof METRICS)[number];

/** Each rate: a percentage of its denominator, two decimals; 0 when the denominator is 0. */
const RATE_OF: Record<Rate, [CountMetric, CountMetric]> = {
  delivery_rate: ['delivered', 'sent'],
  open_rate: ['unique_opened', 'delivered'],
  click_rate: ['unique_clicked', 'delivered'],
  bounce_rate: ['bounced', 'sent'],
  complaint_rate: ['complained', 'delivered'],
  unsubscribe_rate: ['unsubscribed', 'delivered'],
};

const DIMENSIONS = ['period', 'domain', 'email', 'broadcast'] as const;
const GRANULARITIES = ['hourly', 'daily', 'weekly', 'monthly'] as const;
const MAX_PERIODS = 10_000;
const MAX_IDS = 100;
const HOUR = 3_600_000;
const PERIOD_MS: Record<Granularity, number> = { hourly: HOUR, daily: 24 * HOUR, weekly: 7 * 24 * HOUR, monthly: 28 * 24 * HOUR };
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** A list parameter: comma-separated, or repeated (joined with commas by the route's listQuery), or both (Resend's `style: form`). */
function listOf<T extends string>(value: string | undefined, field: string, allowed: readonly T[]): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item)) {
      throw validation(`Invalid \`${field}\` value \`${item}\`: expected a comma-separated list of ${allowed.join(', ')}.`);
    }
  }
  return [...new Set(items)] as T[];
}

/** An id filter: up to 100 UUIDs, comma-separated or repeated. */
function idsOf(value: string | undefined, field: string): string[] | undefined {
  if (value === undefined || value === '') return undefined;
  const ids = [
    ...new Set(
      value
        .split(',')
        .map((id) => id.trim().toLowerCase())
        .filter((id) => id !== ''),
    ),
  ];
  const bad = ids.find((id) => !isUuid(id));
  if (bad !== undefined) throw validation(`Invalid \`${field}\` value \`${bad}\`: expected a comma-separated list of ids.`);
  if (ids.length > MAX_IDS) throw validation(`Invalid \`${field}\`: at most ${MAX_IDS} ids.`);
  return ids;
}

function timeZoneOf(value: string | undefined): string {
  if (value === undefined || value === '') return 'UTC';
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw validation(`Invalid \`timezone\`: \`${value}\` is not an IANA time zone (e.g. America/New_York).`);
  }
}

/** How far `timeZone`'s wall clock is ahead of UTC at `at`, ms. */
function offsetAt(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - (at.getTime() - at.getUTCMilliseconds());
}

/** Midnight starting `date` (YYYY-MM-DD) in `timeZone`, as an instant. */
function midnight(date: string, timeZone: string): Date {
  const utc = new Date(`${date}T00:00:00Z`).getTime();
  // The offset at midnight itself may differ from the one at midnight UTC (a DST change): look twice.
  const first = utc - offsetAt(new Date(utc), timeZone);
  return new Date(utc - offsetAt(new Date(first), timeZone));
}

/** An ISO 8601 date (the start of that day in `timeZone`; as an end, the end of that day) or date-time. */
function instantOf(value: string | undefined, field: string, timeZone: string, asEnd: boolean): Date | undefined {
  if (value === undefined || value === '') return undefined;
  if (DATE_ONLY.test(value)) {
    const day = new Date(`${value}T00:00:00Z`);
    // Date parses 2026-02-30 as March 2nd: only a date that survives the round trip is one.
    if (!Number.isNaN(day.getTime()) && day.toISOString().startsWith(value)) return midnight(asEnd ? nextDay(value) : value, timeZone);
  } else if (DATE_TIME.test(value)) {
    const at = new Date(value);
    if (!Number.isNaN(at.getTime())) return at;
  }
  throw validation(`Invalid \`${field}\`: expected an ISO 8601 date (2026-07-01) or date-time (2026-07-01T00:00:00Z).`);
}

function nextDay(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

function rate(counts: Record<CountMetric, number>, metric: Rate): number {
  const [part, whole] = RATE_OF[metric];
  return whole && counts[whole] ? Math.round((counts[part] / counts[whole]) * 10_000) / 100 : 0;
}

/** The requested metrics of `counts` (which hold every count a requested rate needs). */
function figures(counts: Record<CountMetric, number>, metrics: readonly Metric[]): Partial<Record<Metric, number>> {
  return Object.fromEntries(metrics.map((m) => [m, (RATES as readonly string[]).includes(m) ? rate(counts, m as Rate) : counts[m as CountMetric]]));
}

/** A row's dimension fields, as the SDK's EmailMetricsDataRow names them. */
function dimensionsOf(row: MetricsRow): Record<string, string> {
  const fields: [string, string | undefined][] = [
    ['period', row.period],
    ['domain_id', row.domainId],
    ['domain_name', row.domainName],
    ['email_id', row.emailId],
    ['broadcast_id', row.broadcastId],
    ['broadcast_name', row.broadcastName],
  ];
  return Object.fromEntries(fields.filter((field): field is [string, string] => field[1] !== undefined));
}

const METRIC_FIGURES = Object.fromEntries(METRICS.map((m) => [m, number()]));

export function getEmailMetrics(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails/metrics',
    doc: {
      summary: 'Retrieve email metrics',
      description:
        "Counts and rates of the account's emails over a date range (default: the 7 days up to now), as totals and, with `dimensions=period`, one row per period of `granularity` in `timezone`, empty periods included. " +
        'Counts are of events recorded in the range, precise to the hour: a range is rounded out to whole hours. Rates are percentages (two decimals, 0 when their denominator is 0): ' +
        'delivery_rate = delivered / sent, bounce_rate = bounced / sent, open_rate = unique_opened / delivered, click_rate = unique_clicked / delivered, complaint_rate = complained / delivered, unsubscribe_rate = unsubscribed / delivered. ' +
        '`unique_opened` / `unique_clicked` count emails opened / clicked for the first time in the range. `unsubscribed` counts contacts who left through a broadcast’s unsubscribe link (page or one-click), once per contact and broadcast. ' +
        'With `dimensions` `domain` / `broadcast` / `email`, one row per sending domain / broadcast / email seen in the range (and per period: every period for each domain or broadcast, for each email the periods it has figures in); `domain_id`, `broadcast_id` and `email_id` (up to 100 each) count only those (ids of other accounts count nothing). ' +
        'Received mail, and mail counted before Postline kept these dimensions, has no domain and no broadcast: its rows leave `domain_id` / `broadcast_id` out. ' +
        `Per email, figures are counted from the email's events: without \`email_id\`, the newest ${MAX_EMAILS_BROKEN_DOWN.toLocaleString('en-US')} emails sent in the range get a row (the totals still count all); \`unsubscribed\` is not counted per email. ` +
        '`email` (or `email_id`) cannot be combined with `broadcast` (or `broadcast_id`).',
      query: {
        start_date: string({ description: 'ISO 8601 date (the start of that day in `timezone`) or date-time. Default: 6 days before end_date.' }),
        end_date: string({ description: 'ISO 8601 date (the end of that day in `timezone`) or date-time; later than now counts as now. Default: now.' }),
        timezone: string({ description: 'IANA time zone bucketing days, weeks (from Monday) and months. Default: UTC.' }),
        granularity: oneOfValues(GRANULARITIES, {
          description: 'Period size with `dimensions=period` (at most 10,000 periods). Default: daily.',
          'x-error': { name: 'validation_error', message: `Invalid \`granularity\`: give one of ${GRANULARITIES.join(', ')}.` },
        }),
        metrics: string({ description: `Comma-separated metrics to answer. Default: all of ${METRICS.join(', ')}.` }),
        dimensions: string({ description: `Comma-separated, of ${DIMENSIONS.join(', ')}. Default: none (totals only).` }),
        domain_id: string({ description: 'Comma-separated sending domain ids (up to 100).' }),
        email_id: string({ description: 'Comma-separated email ids (up to 100).' }),
        broadcast_id: string({ description: 'Comma-separated broadcast ids (up to 100).' }),
      },
      response: {
        status: 200,
        schema: object(
          {
            object: constant('metrics'),
            start_date: string({ format: 'date-time' }),
            end_date: string({ format: 'date-time' }),
            metrics: array(oneOfValues(METRICS)),
            dimensions: array(oneOfValues(DIMENSIONS)),
            granularity: oneOfValues(GRANULARITIES),
            totals: object(METRIC_FIGURES, []),
            data: array(
              object(
                {
                  period: string(),
                  domain_id: string({ format: 'uuid' }),
                  domain_name: string(),
                  broadcast_id: string({ format: 'uuid' }),
                  broadcast_name: string(),
                  email_id: string({ format: 'uuid' }),
                  ...METRIC_FIGURES,
                },
                [],
              ),
            ),
          },
          ['object', 'start_date', 'end_date', 'metrics', 'dimensions', 'granularity', 'totals'],
        ),
      },
    },
    listQuery: ['metrics', 'dimensions', 'domain_id', 'email_id', 'broadcast_id'],
    async handler({ principal, query }) {
      const timeZone = timeZoneOf(query.timezone);
      const granularity = (query.granularity ?? 'daily') as Granularity;
      const metrics = listOf(query.metrics, 'metrics', METRICS);
      const dimensions = listOf(query.dimensions, 'dimensions', DIMENSIONS) ?? [];
      if (metrics?.length === 0) throw validation('Invalid `metrics`: name at least one metric.');
      const domainIds = idsOf(query.domain_id, 'domain_id');
      const emailIds = idsOf(query.email_id, 'email_id');
      const broadcastIds = idsOf(query.broadcast_id, 'broadcast_id');
      const perEmail = dimensions.includes('email') ? '`email` dimension' : emailIds && '`email_id`';
      const perBroadcast = dimensions.includes('broadcast') ? '`broadcast` dimension' : broadcastIds && '`broadcast_id`';
      if (perEmail && perBroadcast) throw validation(`Invalid query: the ${perEmail} cannot be combined with the ${perBroadcast}.`);
      const now = new Date();
      const askedEnd = instantOf(query.end_date, 'end_date', timeZone, true);
      const end = askedEnd && askedEnd < now ? askedEnd : now;
      const start = instantOf(query.start_date, 'start_date', timeZone, false) ?? new Date(end.getTime() - 6 * 24 * HOUR);
      // "On or before": a date-only end_date is compared by its day's start.
      const endDay = askedEnd && DATE_ONLY.test(query.end_date!) ? instantOf(query.end_date, 'end_date', timeZone, false)! : end;
      if (start > end || start > endDay) throw validation('Invalid date range: `start_date` must be on or before `end_date`.');
      const byPeriod = dimensions.includes('period');
      if (byPeriod && (end.getTime() - start.getTime()) / PERIOD_MS[granularity] > MAX_PERIODS - 2) {
        throw validation(`The date range makes more than ${MAX_PERIODS} ${granularity} periods: choose a shorter range or a coarser granularity.`);
      }
      const answered = metrics ?? [...METRICS];
      // Every count a requested rate is made of.
      const counts = new Set<CountMetric>();
      for (const m of answered) {
        if ((RATES as readonly string[]).includes(m)) for (const c of RATE_OF[m as Rate]) counts.add(c);
        else counts.add(m as CountMetric);
      }
      const read = await readEmailMetrics(db, {
        accountId: principal.accountId,
        start,
        end,
        metrics: [...counts],
        periods: byPeriod ? { granularity, timeZone } : undefined,
        by: dimensions.filter((d): d is Breakdown => d !== 'period'),
        only: { domainIds, broadcastIds, emailIds },
      });
      return {
        body: {
          object: 'metrics',
          start_date: start.toISOString(),
          end_date: end.toISOString(),
          metrics: answered,
          dimensions,
          granularity,
          totals: figures(read.totals, answered),
          ...(read.rows && { data: read.rows.map((row) => ({ ...dimensionsOf(row), ...figures(row.counts, answered) })) }),
        },
      };
    },
  };
}
