// The overview's figures at scale (issue 16, "Speed"): GET /emails/metrics as the dashboard's
// overview asks for it (24 hours by hour, 7 and 30 days by day) with 1,000,000 emails in the
// account (target: ≤ 200 ms each), and two breakdowns the overview does not ask for: by day and
// domain, and per email (issue 19; no target).
//
// The account is written straight into Postline's tables (a million emails through the API
// would take the bench's whole budget): 1,000,000 emails spread over the last 30 days, each
// with its events (sent; 95 % delivered, 3 % bounced, 2 % deferred then delivered; 0.2 %
// complained; 40 % opened, a quarter of them twice; 10 % clicked): ~2.5 million events. The
// rollup (email_metrics) is filled as the event writer fills it: per hour and metric, over 8
// shards (the connections that would have written them), unique opens and clicks once per email;
// then housekeeping's fold (foldEmailMetricShards) runs as it would, and is timed.
// Postline serves the API only. As the floor it replaces, the bench also times counting the
// same 30 days from the events table (once: it is what the rollup exists to avoid).
//
//   npx tsx bench/dashboard-overview.ts                 # embedded PostgreSQL
//   npx tsx bench/dashboard-overview.ts --db external   # EXTERNAL_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { foldEmailMetricShards } from '../src/events/email-metrics.js';
import { closeAgents, percentile, request } from './support/http-load.js';
import { startPostlineProcess, type DbMode } from './support/postline-process.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded' },
    emails: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '15' },
    keep: { type: 'boolean', default: false },
  },
});
const EMAILS = Number(args.emails);
const RUNS = Number(args.runs);
const DAY = 24 * 3600 * 1000;

const postline = await startPostlineProcess({ db: args.db as DbMode, roles: ['api'], label: 'dashboard-overview' });
try {
  const [{ account_id: accountId }] = await postline.sql(`SELECT account_id FROM api_keys LIMIT 1`);
  const started = performance.now();
  await generateAccount(accountId);
  const [{ n: events }] = await postline.sql(`SELECT count(*)::int AS n FROM events WHERE account_id = $1`, [accountId]);
  const [{ n: shardRows }] = await postline.sql(`SELECT count(*)::int AS n FROM email_metrics WHERE account_id = $1`, [accountId]);
  console.log(`${EMAILS} emails, ${events} events, ${shardRows} rollup rows written in ${fixed((performance.now() - started) / 1000, 1)} s`);
  // Housekeeping's fold of past hours' shards, as the worker role runs it every 10 minutes.
  const foldStarted = performance.now();
  const folded = await foldEmailMetricShards({ query: postline.sql, one: async (sql, params) => (await postline.sql(sql, params))[0] });
  const foldMs = performance.now() - foldStarted;
  await postline.sql(`VACUUM ANALYZE email_metrics`);
  const [{ n: rollupRows }] = await postline.sql(`SELECT count(*)::int AS n FROM email_metrics WHERE account_id = $1`, [accountId]);
  console.log(`folded ${folded} shard rows in ${fixed(foldMs, 0)} ms: ${rollupRows} rollup rows`);

  const get = async (path: string) => {
    const t0 = performance.now();
    const res = await request(postline, 'GET', path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return { ms: performance.now() - t0, body: res.body };
  };
  // As the overview asks (web/src/pages/Overview.tsx metricsPath).
  const metrics = 'sent,delivered,bounced,complained,opened,clicked,delivery_rate,bounce_rate,complaint_rate,open_rate,click_rate';
  const dayStart = (days: number) => new Date(Date.now() - (days - 1) * DAY).toISOString().slice(0, 10);
  const paths = {
    '24 hours by hour': () => `/emails/metrics?dimensions=period&granularity=hourly&metrics=${metrics}&start_date=${new Date(Date.now() - DAY).toISOString()}`,
    '7 days by day': () => `/emails/metrics?dimensions=period&granularity=daily&timezone=Europe/Paris&metrics=${metrics}&start_date=${dayStart(7)}`,
    '30 days by day': () => `/emails/metrics?dimensions=period&granularity=daily&timezone=Europe/Paris&metrics=${metrics}&start_date=${dayStart(30)}`,
    '30 days, totals of every metric': () => `/emails/metrics?start_date=${dayStart(30)}`,
  };
  const rows: { figure: string; median: number; p95: number; target: number | string }[] = [];
  for (const [figure, path] of Object.entries(paths)) rows.push({ figure, ...(await timed(() => get(path()))), target: 200 });
  // Breakdowns the overview does not ask for (issue 19): by day and domain from the rollup; per
  // email (the newest 1,000 sent in the range) from their events.
  const breakdowns = {
    '30 days by day and domain': () => `/emails/metrics?dimensions=period,domain&metrics=${metrics}&start_date=${dayStart(30)}`,
    '30 days per email (newest 1,000)': () => `/emails/metrics?dimensions=email&metrics=${metrics}&start_date=${dayStart(30)}`,
  };
  for (const [figure, path] of Object.entries(breakdowns)) rows.push({ figure, ...(await timed(() => get(path()))), target: '' });
  // The machine's floor for any answer: a route that reads one small row (the shared machine's
  // load shows here first).
  rows.push({ figure: 'floor: GET /domains (one domain)', ...(await timed(() => get('/domains'))), target: '' });
  const month = (await get(paths['30 days, totals of every metric']())).body.totals;
  console.log(`30 days: ${JSON.stringify(month)}`);

  // The floor the rollup avoids: the same 30 days counted from the events table, once.
  const t0 = performance.now();
  await postline.sql(`SELECT type, count(*) FROM events WHERE account_id = $1 AND created_at >= now() - interval '30 days' GROUP BY type`, [accountId]);
  rows.push({ figure: 'without the rollup: counting 30 days of events in SQL (once)', median: performance.now() - t0, p95: Number.NaN, target: '' });

  const m = machine();
  printMachine(m);
  console.log(
    table(
      ['figure', 'median ms', 'p95 ms', 'target ms'],
      rows.map((r) => [r.figure, fixed(r.median, 1), Number.isNaN(r.p95) ? '' : fixed(r.p95, 1), r.target]),
    ),
  );
  const file = appendResults(
    'dashboard-overview',
    m,
    rows.map((r) => ({ db: args.db, emails: EMAILS, events, rollup_rows: rollupRows, fold_ms: foldMs, ...r })),
  );
  console.log(`results appended to ${file}`);
} finally {
  closeAgents();
  await postline.stop({ keepDatabase: args.keep });
}

async function timed(run: () => Promise<{ ms: number }>): Promise<{ median: number; p95: number }> {
  await run(); // warm: plans cached, pages in memory
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push((await run()).ms);
  times.sort((a, b) => a - b);
  return { median: percentile(times, 50), p95: percentile(times, 95) };
}

async function generateAccount(accountId: string): Promise<void> {
  // Emails spread evenly over the last 30 days; p decides each one's fate.
  await postline.sql(
    `INSERT INTO emails (id, account_id, from_address, to_addresses, subject, message_id, last_event, created_at)
     SELECT gen_random_uuid(), $1, 'bench@sender.test', ARRAY['r' || i || '@example.test'], 'Overview ' || i, '<' || i || '@sender.test>',
            'delivered', now() - (i::float8 / $2) * interval '30 days'
       FROM generate_series(1, $2::int) i`,
    [accountId, EMAILS],
  );
  await postline.sql(
    `INSERT INTO events (account_id, type, email_id, data, created_at)
     SELECT $1, x.type, e.id, '{}'::jsonb || CASE WHEN x.type = 'email.bounced' THEN '{"bounce":{"type":"Permanent"}}'::jsonb ELSE '{}' END,
            e.created_at + x.after
       FROM (SELECT id, created_at, (hashtext(id::text) & 1023) / 1024.0 AS p, (hashtext(id::text || 'o') & 1023) / 1024.0 AS q
               FROM emails WHERE account_id = $1) e
            CROSS JOIN LATERAL (VALUES
              ('email.sent', interval '0'),
              (CASE WHEN e.p >= 0.95 AND e.p < 0.97 THEN 'email.delivery_delayed' END, interval '1 minute'),
              (CASE WHEN e.p < 0.97 THEN 'email.delivered' ELSE 'email.bounced' END, interval '2 minutes'),
              (CASE WHEN e.p < 0.002 THEN 'email.complained' END, interval '1 hour'),
              (CASE WHEN e.q < 0.40 THEN 'email.opened' END, interval '10 minutes'),
              (CASE WHEN e.q < 0.10 THEN 'email.opened' END, interval '3 hours'),
              (CASE WHEN e.q < 0.10 THEN 'email.clicked' END, interval '11 minutes')) AS x(type, after)
      WHERE x.type IS NOT NULL AND e.created_at + x.after <= now()`,
    [accountId],
  );
  // The rollup as the writer keeps it (src/events/email-metrics.ts), over 8 connections' shards.
  await postline.sql(
    `INSERT INTO email_metrics (account_id, hour, metric, shard, count)
     SELECT account_id, date_trunc('hour', created_at), metric, shard, count(*)
       FROM (SELECT account_id, created_at, hashtext(email_id::text) & 7 AS shard,
                    unnest(ARRAY[CASE type WHEN 'email.sent' THEN 'sent' WHEN 'email.delivered' THEN 'delivered'
                                           WHEN 'email.delivery_delayed' THEN 'delivery_delayed' WHEN 'email.bounced' THEN 'bounced'
                                           WHEN 'email.complained' THEN 'complained' WHEN 'email.opened' THEN 'opened'
                                           WHEN 'email.clicked' THEN 'clicked' END,
                                 CASE type WHEN 'email.bounced' THEN 'bounced_permanent' END]) AS metric
               FROM events WHERE account_id = $1
             UNION ALL
             (SELECT DISTINCT ON (email_id, type) account_id, created_at, hashtext(email_id::text) & 7,
                     CASE type WHEN 'email.opened' THEN 'unique_opened' ELSE 'unique_clicked' END
                FROM events WHERE account_id = $1 AND type IN ('email.opened', 'email.clicked')
               ORDER BY email_id, type, id)) counted
      WHERE metric IS NOT NULL
      GROUP BY 1, 2, 3, 4`,
    [accountId],
  );
  await postline.sql(`VACUUM ANALYZE emails`);
  await postline.sql(`VACUUM ANALYZE events`);
  await postline.sql(`VACUUM ANALYZE email_metrics`);
}
