// The Emails page at scale (issue 16, "Speed"; issue 37: search, part of an address, the
// capped count): with 1,000,000 emails in the account, GET /emails unfiltered and with each
// filter, and an email's page reads (GET /emails/:id, its events, its delivery attempts), each
// within 100 ms of server time.
//
// The rows are written straight into Postline's tables with generate_series (a million emails
// through the API would take the bench's whole budget), shaped like a sender's quarter: 90 days
// of mail, five senders, 200,000 recipients (about five emails each), a handful of subjects,
// half tagged; last events mostly delivered, then opened, clicked, a few percent bounced,
// deferred, suppressed, failed, rare complaints, some scheduled and canceled. One delivery per
// email, its attempts (a deferred one has two), its events (sent, then what followed). Postline
// serves the API only (no worker: nothing moves while it is measured); times are the HTTP round
// trip on loopback, so a little above the server's own.
//
//   npx tsx bench/dashboard-emails.ts                 # embedded PostgreSQL
//   npx tsx bench/dashboard-emails.ts --db external   # EXTERNAL_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { closeAgents, percentile, request } from './support/http-load.js';
import { type DbMode, startPostlineProcess } from './support/postline-process.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded' },
    emails: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '15' },
    /** Print each list query's plan (EXPLAIN ANALYZE) after measuring. */
    explain: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const EMAILS = Number(args.emails);
const RUNS = Number(args.runs);

const postline = await startPostlineProcess({ db: args.db as DbMode, roles: ['api'], label: 'dashboard-emails' });
try {
  const [{ account_id: accountId }] = await postline.sql(`SELECT account_id FROM api_keys LIMIT 1`);
  const started = performance.now();
  await generate(accountId);
  console.log(`${EMAILS} emails written in ${fixed((performance.now() - started) / 1000, 1)} s`);

  const get = async (path: string) => {
    const t0 = performance.now();
    const res = await request(postline, 'GET', path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return { ms: performance.now() - t0, body: res.body };
  };
  // An email from the middle of the period, and a recipient of it.
  const [sample] = await postline.sql(
    `SELECT e.id, d.recipient FROM emails e JOIN deliveries d ON d.email_id = e.id
      WHERE e.account_id = $1 AND e.last_event = 'delivered' AND e.created_at < now() - interval '45 days' LIMIT 1`,
    [accountId],
  );
  const day = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
  const nextDay = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
  const lists: [string, string][] = [
    ['unfiltered, first page', ''],
    ['a page 10,000 in', 'DEEP'],
    ['last_event=delivered (70 %)', 'last_event=delivered'],
    ['last_event=bounced (3 %)', 'last_event=bounced'],
    ['last_event=complained (0.1 %)', 'last_event=complained'],
    ['from=billing (20 %)', 'from=billing'],
    ['from=nobody (no match)', 'from=nobody'],
    ['to=one recipient (~5 emails)', `to=${encodeURIComponent(sample.recipient)}`],
    ['to=part of a domain (0.1 %)', 'to=%40d5.test'],
    ['to=zzyzx (no match)', 'to=zzyzx'],
    ['search=one recipient (~5 emails)', `search=${encodeURIComponent(sample.recipient)}`],
    ['search=an id', `search=${sample.id}`],
    ['search=invoice (25 %)', 'search=invoice'],
    ['search=password (1 %)', 'search=password'],
    ['search=zzyzx (no match)', 'search=zzyzx'],
    ['include_total=true, unfiltered (capped)', 'include_total=true'],
    ['include_total=true&search=password (1 %)', 'include_total=true&search=password'],
    ['include_total=true&search=zzyzx (no match)', 'include_total=true&search=zzyzx'],
    ['subject=invoice (25 %)', 'subject=invoice'],
    ['subject=password (1 %)', 'subject=password'],
    ['subject=zzyzx (no match)', 'subject=zzyzx'],
    ['tag=category:receipt (10 %)', 'tag=category%3Areceipt'],
    ['tag=campaign (1 %)', 'tag=campaign'],
    [`created ${day} (one day)`, `created_after=${day}&created_before=${nextDay}`],
    ['bounced + subject=invoice', 'last_event=bounced&subject=invoice'],
  ];
  let deepCursor = '';
  {
    let page = (await get('/emails?limit=100')).body;
    for (let i = 1; i < 100 && page.has_more; i++) page = (await get(`/emails?limit=100&after=${page.data.at(-1).id}`)).body;
    deepCursor = page.data.at(-1).id;
  }
  const rows: { figure: string; median: number; p95: number; found: number }[] = [];
  for (const [figure, query] of lists) {
    const path = query === 'DEEP' ? `/emails?after=${deepCursor}` : `/emails${query ? `?${query}` : ''}`;
    const found = (await get(path)).body.data.length;
    rows.push({ figure: `GET /emails ${figure}`, found, ...(await timed(() => get(path))) });
  }
  for (const suffix of ['', '/events', '/attempts']) {
    const path = `/emails/${sample.id}${suffix}`;
    const body = (await get(path)).body;
    rows.push({ figure: `GET /emails/:id${suffix}`, found: body.data?.length ?? 1, ...(await timed(() => get(path))) });
  }

  const m = machine();
  printMachine(m);
  console.log(
    table(
      ['figure', 'rows', 'median ms', 'p95 ms', 'target ms'],
      rows.map((r) => [r.figure, r.found, fixed(r.median, 1), fixed(r.p95, 1), 100]),
    ),
  );
  const file = appendResults(
    'dashboard-emails',
    m,
    rows.map((r) => ({ db: args.db, emails: EMAILS, target: 100, ...r })),
  );
  console.log(`results appended to ${file}`);
  if (args.explain) {
    for (const [figure, query] of lists.filter(([, q]) => q && q !== 'DEEP' && q !== 'include_total=true')) {
      const where = explainWhere(query);
      const plan = await postline.sql(
        query.startsWith('include_total=')
          ? `EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM (SELECT 1 FROM emails WHERE account_id = $1 AND ${where} LIMIT 1001) matching`
          : `EXPLAIN (ANALYZE, BUFFERS) SELECT id FROM emails WHERE account_id = $1 AND ${where} ORDER BY created_at DESC, id DESC LIMIT 21`,
        [accountId],
      );
      console.log(`--- ${figure}\n${plan.map((p) => p['QUERY PLAN']).join('\n')}`);
    }
  }
} finally {
  closeAgents();
  await postline.stop({ keepDatabase: args.keep });
}

/** The list's condition for --explain, with literals (the route binds them; src/emails/email-filters.ts). */
function explainWhere(query: string): string {
  const [name, raw] = query
    .split('&')
    .find((p) => !p.startsWith('include_total='))!
    .split('=') as [string, string];
  const value = decodeURIComponent(raw).replace(/'/g, "''");
  const recipients = 'email_recipients_text(to_addresses, cc, bcc)';
  if (name === 'last_event') return `last_event = '${value}'`;
  if (name === 'from') return `from_address ILIKE '%${value}%'`;
  if (name === 'subject') return `subject ILIKE '%${value}%'`;
  if (name === 'to') return `${recipients} ILIKE '%${value}%'`;
  if (name === 'search') {
    const id = /^[0-9a-f-]{36}$/i.test(value) ? `id = '${value}' OR ` : '';
    return `(${id}subject ILIKE '%${value}%' OR from_address ILIKE '%${value}%' OR ${recipients} ILIKE '%${value}%')`;
  }
  if (name === 'tag') {
    const [n, v] = value.split(':');
    return `tags @> '${JSON.stringify([v === undefined ? { name: n } : { name: n, value: v }])}'::jsonb`;
  }
  return `created_at >= '${value}'`;
}

async function timed(run: () => Promise<{ ms: number }>): Promise<{ median: number; p95: number }> {
  await run(); // warm: plans cached, pages in memory
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push((await run()).ms);
  times.sort((a, b) => a - b);
  return { median: percentile(times, 50), p95: percentile(times, 95) };
}

async function generate(accountId: string): Promise<void> {
  // p decides the last event; the emails are spread evenly over 90 days, newest last.
  await postline.sql(
    `INSERT INTO emails (id, account_id, from_address, to_addresses, subject, html, tags, message_id, last_event, scheduled_at, created_at)
     SELECT gen_random_uuid(), $1,
            (ARRAY['Billing <billing@sender.test>', 'News <news@sender.test>', 'news@sender.test', 'Support <help@sender.test>', 'Alerts <alerts@sender.test>'])[1 + i % 5],
            ARRAY['user' || (i % 200000) || '@d' || (i % 997) || '.test'],
            CASE WHEN i % 100 = 7 THEN 'Password reset for account ' || i
                 WHEN i % 4 = 0 THEN 'Invoice #' || i
                 WHEN i % 4 = 1 THEN 'Your weekly digest'
                 ELSE 'Welcome aboard, user ' || (i % 200000) END,
            '<p>Hello user ' || i || ', here is what happened this week.</p>' || repeat('<p>Some more of the body text of a real email.</p>', 8),
            CASE WHEN i % 10 = 3 THEN '[{"name":"category","value":"receipt"}]'::jsonb
                 WHEN i % 100 = 11 THEN '[{"name":"campaign","value":"spring"}]'::jsonb
                 WHEN i % 2 = 0 THEN '[{"name":"category","value":"newsletter"}]'::jsonb END,
            '<' || i || '@sender.test>',
            CASE WHEN p < 0.70 THEN 'delivered' WHEN p < 0.85 THEN 'opened' WHEN p < 0.90 THEN 'clicked'
                 WHEN p < 0.93 THEN 'bounced' WHEN p < 0.94 THEN 'delivery_delayed' WHEN p < 0.95 THEN 'suppressed'
                 WHEN p < 0.955 THEN 'failed' WHEN p < 0.956 THEN 'complained' WHEN p < 0.98 THEN 'sent'
                 WHEN p < 0.99 THEN 'scheduled' ELSE 'canceled' END,
            CASE WHEN p >= 0.98 THEN now() - interval '90 days' + i * (interval '90 days' / $2::int) + interval '1 day' END,
            now() - interval '90 days' + i * (interval '90 days' / $2::int)
       FROM (SELECT i, random() AS p FROM generate_series(1, $2::int) i) g`,
    [accountId, EMAILS],
  );
  await postline.sql(
    `INSERT INTO deliveries (email_id, account_id, recipient, domain, status, attempts, next_attempt_at, last_response, last_attempt_at, last_mx, created_at)
     SELECT id, account_id, to_addresses[1], split_part(to_addresses[1], '@', 2),
            CASE last_event WHEN 'bounced' THEN 'bounced' WHEN 'failed' THEN 'failed' WHEN 'suppressed' THEN 'suppressed'
                            WHEN 'delivery_delayed' THEN 'queued' WHEN 'sent' THEN 'queued' WHEN 'scheduled' THEN 'scheduled'
                            WHEN 'canceled' THEN 'canceled' ELSE 'delivered' END,
            CASE WHEN last_event IN ('sent', 'scheduled', 'canceled', 'suppressed') THEN 0 ELSE 1 END,
            created_at + interval '1 hour',
            CASE WHEN last_event = 'bounced' THEN '550 5.1.1 No such user' WHEN last_event = 'delivery_delayed' THEN '451 4.7.1 Try again later'
                 WHEN last_event IN ('sent', 'scheduled', 'canceled', 'suppressed') THEN NULL ELSE '250 2.0.0 OK' END,
            CASE WHEN last_event NOT IN ('sent', 'scheduled', 'canceled', 'suppressed') THEN created_at + interval '2 seconds' END,
            CASE WHEN last_event NOT IN ('sent', 'scheduled', 'canceled', 'suppressed') THEN 'mx.' || split_part(to_addresses[1], '@', 2) END,
            created_at
       FROM emails WHERE account_id = $1`,
    [accountId],
  );
  await postline.sql(
    `INSERT INTO delivery_attempts (email_id, delivery_id, recipient, mx, response, outcome, attempted_at)
     SELECT d.email_id, d.id, d.recipient, d.last_mx,
            CASE WHEN n = 1 AND d.status <> 'bounced' AND e.last_event IN ('delivery_delayed', 'failed') THEN '451 4.7.1 Try again later' ELSE d.last_response END,
            CASE WHEN e.last_event IN ('delivery_delayed') OR (n = 1 AND e.last_event = 'failed') THEN 'deferred'
                 WHEN e.last_event IN ('opened', 'clicked') THEN 'delivered' ELSE e.last_event END,
            d.created_at + n * interval '2 seconds'
       FROM deliveries d JOIN emails e ON e.id = d.email_id
       CROSS JOIN generate_series(1, 2) n
      WHERE d.account_id = $1 AND d.last_response IS NOT NULL AND (n = 1 OR e.last_event IN ('delivery_delayed', 'failed'))`,
    [accountId],
  );
  // Events: sent (or scheduled) for each, then what followed (delivered before an open or a click).
  await postline.sql(
    `INSERT INTO events (account_id, type, email_id, data, created_at)
     SELECT e.account_id, 'email.' || t.type, e.id,
            jsonb_build_object('email_id', e.id, 'from', e.from_address, 'to', to_jsonb(e.to_addresses), 'subject', e.subject, 'created_at', e.created_at),
            e.created_at + t.n * interval '1 second'
       FROM emails e
       CROSS JOIN LATERAL (VALUES
           (0, CASE WHEN e.last_event IN ('scheduled', 'canceled') THEN 'scheduled' ELSE 'sent' END),
           (1, CASE WHEN e.last_event IN ('opened', 'clicked') THEN 'delivered' END),
           (2, CASE WHEN e.last_event = 'clicked' THEN 'opened' END),
           (3, CASE WHEN e.last_event NOT IN ('sent', 'scheduled') THEN e.last_event END)) AS t(n, type)
      WHERE e.account_id = $1 AND t.type IS NOT NULL`,
    [accountId],
  );
  for (const t of ['emails', 'deliveries', 'delivery_attempts', 'events']) await postline.sql(`VACUUM ANALYZE ${t}`);
}
