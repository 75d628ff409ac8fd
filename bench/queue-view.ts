// The queue view at scale (issue 15, "Speed"): GET /queue with 1,000,000 deliveries not yet
// final across ~10,000 recipient domains (target: ≤ 200 ms), and one destination's listing
// paged 20 at a time (target: ≤ 50 ms a page, deep pages included).
//
// The backlog is written straight into Postline's tables (generating a million emails
// through the API would take the bench's whole budget), shaped like a real one: 100,000
// emails of 10 recipients; domains log-uniformly popular (a few huge, a long tail); 70 %
// deferred with a 4xx reply from their MX host, 10 % due, 10 % scheduled, 5 % in flight, 5 %
// paused; plus 1,000,000 delivered rows the views must not read. Postline serves the API only
// (no worker: nothing moves while it is measured).
//
//   npx tsx bench/queue-view.ts                 # embedded PostgreSQL
//   npx tsx bench/queue-view.ts --db external   # EXTERNAL_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { closeAgents, percentile, request } from './support/http-load.js';
import { startPostlineProcess, type DbMode } from './support/postline-process.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded' },
    emails: { type: 'string', default: '100000' },
    recipients: { type: 'string', default: '10' },
    domains: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '15' },
    /** Keep the database afterwards (to EXPLAIN the views' queries by hand). */
    keep: { type: 'boolean', default: false },
  },
});
const EMAILS = Number(args.emails);
const RECIPIENTS = Number(args.recipients);
const DOMAINS = Number(args.domains);
const RUNS = Number(args.runs);

const postline = await startPostlineProcess({ db: args.db as DbMode, roles: ['api'], label: 'queue-view' });
try {
  const [{ account_id: accountId }] = await postline.sql(`SELECT account_id FROM api_keys LIMIT 1`);
  const started = performance.now();
  await generateBacklog(accountId);
  console.log(`backlog written in ${fixed((performance.now() - started) / 1000, 1)} s`);

  const get = async (path: string) => {
    const t0 = performance.now();
    const res = await request(postline, 'GET', path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return { ms: performance.now() - t0, body: res.body };
  };

  const summary = await timed(() => get('/queue'));
  const first = (await get('/queue')).body;
  const biggest = first.destinations[0];
  console.log(`GET /queue: ${first.total} not final, ${first.destinations_total} destinations; biggest ${biggest.domain} (${biggest.total})`);

  // Pages of the biggest destination: the first, and one 10,000 messages in.
  let deep = (await get(`/queue/destinations/${biggest.domain}?limit=100`)).body;
  for (let i = 1; i < 100 && deep.has_more; i++) deep = (await get(`/queue/destinations/${biggest.domain}?limit=100&after=${deep.data.at(-1).id}`)).body;
  const cursor = deep.data.at(-1).id;
  const firstPage = await timed(() => get(`/queue/destinations/${biggest.domain}?limit=20`));
  const deepPage = await timed(() => get(`/queue/destinations/${biggest.domain}?limit=20&after=${cursor}`));
  const tail = first.destinations.at(-1).domain;
  // The floor under the summary: PostgreSQL counting the same rows per domain, nothing else
  // (no states, no ages, no replies, no HTTP), on the same connection pool's database.
  const floor = await timed(async () => {
    const t0 = performance.now();
    await postline.sql(`SELECT domain, count(*) FROM deliveries WHERE account_id = $1 AND status IN ('queued', 'scheduled', 'paused') GROUP BY domain`, [
      accountId,
    ]);
    return { ms: performance.now() - t0 };
  });
  const smallPage = await timed(() => get(`/queue/destinations/${tail}?limit=20`));

  const m = machine();
  printMachine(m);
  const rows: { figure: string; median: number; p95: number; target: number | string }[] = [
    { figure: 'GET /queue (summary)', ...summary, target: 200 },
    { figure: 'floor: count per domain in SQL alone', ...floor, target: '' },
    { figure: `listing, first page (${biggest.domain})`, ...firstPage, target: 50 },
    { figure: 'listing, a page 10,000 in', ...deepPage, target: 50 },
    { figure: `listing, a small destination (${tail})`, ...smallPage, target: 50 },
  ];
  console.log(
    table(
      ['figure', 'median ms', 'p95 ms', 'target ms'],
      rows.map((r) => [r.figure, fixed(r.median, 1), fixed(r.p95, 1), r.target]),
    ),
  );
  const file = appendResults(
    'queue-view',
    m,
    rows.map((r) => ({ db: args.db, not_final: first.total, destinations: first.destinations_total, ...r })),
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

async function generateBacklog(accountId: string): Promise<void> {
  await postline.sql(
    `INSERT INTO emails (id, account_id, from_address, to_addresses, subject, message_id, last_event, created_at)
     SELECT gen_random_uuid(), $1, 'bench@sender.test', ARRAY['x@example.test'], 'Backlog ' || i, '<' || i || '@sender.test>',
            'delivery_delayed', now() - (i % 7200) * interval '1 second'
       FROM generate_series(1, $2::int) i`,
    [accountId, EMAILS],
  );
  // Two rows per recipient slot: one waiting in some state, one already delivered.
  await postline.sql(
    `INSERT INTO deliveries (email_id, account_id, recipient, domain, status, attempts, next_attempt_at, last_response,
                             last_attempt_at, last_mx, claimed_by, created_at)
     SELECT s.email_id, s.account_id, 'r' || s.r || '@' || s.domain, s.domain,
            CASE WHEN s.p < 0.10 THEN 'scheduled' WHEN s.p < 0.15 THEN 'paused' ELSE 'queued' END,
            CASE WHEN s.p >= 0.30 THEN 1 ELSE 0 END,
            CASE WHEN s.p < 0.10 THEN now() + interval '1 day'
                 WHEN s.p < 0.20 THEN now() - interval '1 minute'
                 WHEN s.p < 0.25 THEN now() + interval '5 minutes'
                 ELSE now() + interval '30 minutes' END,
            CASE WHEN s.p >= 0.30 THEN '451 4.7.1 Try again later' END,
            CASE WHEN s.p >= 0.30 THEN now() - interval '10 minutes' END,
            CASE WHEN s.p >= 0.30 THEN 'mx.' || s.domain END,
            CASE WHEN s.p >= 0.20 AND s.p < 0.25 THEN gen_random_uuid() END,
            s.created_at
       FROM (SELECT e.id AS email_id, e.account_id, e.created_at, r, random() AS p,
                    'd' || floor(power($3::float8, random()))::int || '.test' AS domain
               FROM emails e CROSS JOIN generate_series(1, $2::int) r
              WHERE e.account_id = $1) s`,
    [accountId, RECIPIENTS, DOMAINS],
  );
  await postline.sql(
    `INSERT INTO deliveries (email_id, account_id, recipient, domain, status, attempts, next_attempt_at, created_at)
     SELECT email_id, account_id, 'done-' || recipient, domain, 'delivered', 1, now(), created_at FROM deliveries`,
  );
  await postline.sql(
    `INSERT INTO destination_replies (account_id, domain, mx, reply, attempted_at)
     SELECT $1, domain, 'mx.' || domain, '451 4.7.1 Try again later', now() - interval '10 minutes'
       FROM deliveries GROUP BY domain`,
    [accountId],
  );
  await postline.sql(`VACUUM ANALYZE deliveries`);
  await postline.sql(`VACUUM ANALYZE emails`);
  await postline.sql(`ANALYZE destination_replies`);
}
