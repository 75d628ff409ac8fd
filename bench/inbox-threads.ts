// Thread listing and search in a big inbox (issue 19, "Speed"): one inbox holding 100,000
// threads (~250,000 messages), then, through the HTTP API, the first page of the inbox folder, a
// page far down with an `after` cursor, another folder, a label, the unread, and full-text
// search for a common word, a rare word and two words together. Target: ≤ 100 ms each (median
// and p95 over --runs requests, after one warm-up).
//
// The inbox is created through the API (a verified receiving domain on the bench's DNS server);
// its threads and messages are written straight into inbox_threads / inbox_messages as
// threading.ts writes them (the same full-text document: subject weighted A, addresses, text),
// since 250,000 messages through SMTP would take the bench's whole budget. Text is drawn from a
// ranked English vocabulary with a skewed (Zipf-like) pick, so common words are in most
// messages and the tail is rare; the rare search word is in 1 message of 5,000. Folders: 70 %
// inbox, 20 % archive, 5 % sent, 3 % spam, 2 % trash; 20 % unread; labels on 10 %, 3 % and 0.5 %
// of threads. Activity spread over the last year.
//
//   npx tsx bench/inbox-threads.ts                       # embedded PostgreSQL
//   npx tsx bench/inbox-threads.ts --db external --threads 100000 --runs 15
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { Queryable } from '../src/db/database.js';
import { readInboxes } from '../src/inboxes/inbox-view.js';
import { listThreads } from '../src/inboxes/thread-list.js';
import { closeAgents, getJson, percentile, postJson } from './support/http-load.js';
import { startPostlineProcess, type DbMode } from './support/postline-process.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';
import { startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded' },
    threads: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '15' },
    explain: { type: 'boolean', default: false },
  },
});
const THREADS = Number(args.threads);
const RUNS = Number(args.runs);
const TARGET_MS = 100;
const DOMAIN = 'support.postline-bench.test';
const RARE_WORD = 'quetzal';

// Ranked: the first words are drawn most often (stop words are dropped by the 'english' parser).
const VOCABULARY = `the to and of a in for is on that you with this be we have it are your please
  thanks order invoice meeting account payment delivery update team project week customer support
  request attached report shipment question issue time price contract review schedule call office
  number today tomorrow monday friday client quote email reply confirm details service product
  information budget change plan access login password refund return warehouse stock supplier
  agreement draft proposal deadline release version feature bug ticket priority status approval
  manager director sales marketing finance legal training onboarding holiday travel booking hotel
  flight conference agenda minutes notes summary presentation slides document spreadsheet figures
  quarter revenue forecast target discount renewal subscription license upgrade migration server
  network outage incident backup restore database security audit compliance policy privacy claim
  warranty repair replacement damaged missing tracking courier parcel pallet container customs
  duty tax receipt statement balance overdue reminder credit debit transfer bank card transaction
  vendor purchase catalogue sample prototype design drawing specification measurement tolerance
  assembly factory production capacity maintenance inspection certificate calibration logistics
  route driver vehicle fleet fuel mileage expense reimbursement payroll salary contractor hiring
  interview candidate reference offer relocation parking badge reception visitor cleaning kitchen
  printer laptop monitor keyboard headset charger cable adapter router firewall antivirus patch
  newsletter webinar survey feedback testimonial partnership sponsorship exhibition brochure logo
  trademark patent lawsuit settlement arbitration insurance premium deductible broker underwriter
  actuary mortgage lease tenant landlord inventory barcode forklift crane scaffold turbine valve`
  .split(/\s+/)
  .filter((w) => w !== '');
const FIRST_NAMES = ['anna', 'ben', 'chloe', 'david', 'elena', 'farid', 'grace', 'hugo', 'ines', 'jonas', 'keiko', 'liam', 'maria', 'noah', 'olga', 'pablo'];
const LAST_NAMES = ['martin', 'schmidt', 'rossi', 'garcia', 'novak', 'dubois', 'kowalski', 'silva', 'jensen', 'tanaka', 'okafor', 'larsen'];
const COMPANIES = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'vandelay', 'stark', 'wayne', 'tyrell', 'cyberdyne', 'soylent', 'wonka'];

const dns = await startBenchDns();
const postline = await startPostlineProcess({
  db: args.db as DbMode,
  roles: ['api'],
  label: 'inbox-threads',
  env: { POSTLINE_DNS_SERVERS: dns.address },
});
try {
  await verifiedSendingDomain(postline, dns, { name: DOMAIN, receiving: true });
  const created = await postJson(postline, '/inboxes', { email_address: `help@${DOMAIN}`, name: 'Help desk' });
  if (created.status !== 201) throw new Error(`POST /inboxes → ${created.status} ${JSON.stringify(created.body)}`);
  const inboxId = created.body.id as string;
  const labels: Record<string, string> = {};
  for (const name of ['customers', 'billing', 'urgent']) {
    const label = await postJson(postline, `/inboxes/${inboxId}/labels`, { name, color: '#3366FF' });
    if (label.status !== 201) throw new Error(`POST labels → ${label.status} ${JSON.stringify(label.body)}`);
    labels[name] = label.body.id;
  }

  const started = performance.now();
  await fillInbox(inboxId, labels);
  const [counts] = await postline.sql(
    `SELECT (SELECT count(*)::int FROM inbox_threads WHERE inbox_id = $1) AS threads,
            (SELECT count(*)::int FROM inbox_messages WHERE inbox_id = $1) AS messages,
            (SELECT pg_size_pretty(pg_total_relation_size('inbox_messages'))) AS messages_size`,
    [inboxId],
  );
  console.log(
    `${counts.threads} threads, ${counts.messages} messages (${counts.messages_size}) written in ${fixed((performance.now() - started) / 1000, 1)} s`,
  );

  // The cursor of a page far down the inbox folder: the 2,000th thread, newest first.
  const farOffset = Math.min(2000, Math.floor(THREADS / 4));
  const [{ id: farCursor }] = await postline.sql(
    `SELECT id FROM inbox_threads WHERE inbox_id = $1 AND folder = 'inbox' ORDER BY last_message_at DESC, id DESC OFFSET $2 - 1 LIMIT 1`,
    [inboxId, farOffset],
  );
  const commonWord = 'order'; // the ranked vocabulary's most drawn word past the stop words
  const matching = async (query: string) =>
    (
      await postline.sql(`SELECT count(*)::int AS n FROM inbox_messages WHERE inbox_id = $1 AND search @@ websearch_to_tsquery('english', $2)`, [
        inboxId,
        query,
      ])
    )[0].n as number;
  const threads = `/inboxes/${inboxId}/threads`;
  const search = (q: string) => `${threads}/search?limit=20&query=${encodeURIComponent(q)}`;
  const figures: [string, string][] = [
    ['list: inbox folder, first page', `${threads}?limit=20`],
    [`list: inbox folder, page after the ${farOffset}th thread`, `${threads}?limit=20&after=${farCursor}`],
    ['list: archive folder', `${threads}?limit=20&folders=archive`],
    ['list: label on 10 % of threads', `${threads}?limit=20&labels=${labels.customers}`],
    ['list: label on 0.5 % of threads', `${threads}?limit=20&labels=${labels.urgent}`],
    ['list: unread', `${threads}?limit=20&read=false`],
    [`search: common word "${commonWord}" (${await matching(commonWord)} messages)`, search(commonWord)],
    [`search: rare word "${RARE_WORD}" (${await matching(RARE_WORD)} messages)`, search(RARE_WORD)],
    [`search: two words "invoice overdue" (${await matching('invoice overdue')} messages)`, search('invoice overdue')],
    [`search: sender address, common word`, `${search(commonWord)}&from=${encodeURIComponent('anna.martin@acme.example')}`],
  ];
  const rows: { figure: string; median: number; p95: number; items: number }[] = [];
  for (const [figure, path] of figures) rows.push({ figure, ...(await timed(path)) });
  rows.push({ figure: 'GET /inboxes/:id (unread count, last received)', ...(await timed(`/inboxes/${inboxId}`)) });
  // The machine's floor for any answer: a route that reads one small row (other load shows here first).
  rows.push({ figure: 'floor: GET /domains (one domain)', ...(await timed('/domains')) });
  if (args.explain) await explain(inboxId, commonWord);

  const m = machine();
  printMachine(m);
  console.log(
    table(
      ['figure', 'items', 'median ms', 'p95 ms', 'target ms'],
      rows.map((r) => [r.figure, r.items, fixed(r.median, 1), fixed(r.p95, 1), r.figure.startsWith('floor') ? '' : TARGET_MS]),
    ),
  );
  const file = appendResults(
    'inbox-threads',
    m,
    rows.map((r) => ({ db: args.db, threads: counts.threads, messages: counts.messages, target_ms: TARGET_MS, ...r })),
  );
  console.log(`results appended to ${file}`);
} finally {
  closeAgents();
  await postline.stop();
  await dns.stop();
}

/** The plans of the listing and search statements, as listThreads writes them, run with EXPLAIN ANALYZE. */
async function explain(inboxId: string, commonWord: string): Promise<void> {
  // Each statement is explained, then run for its rows (the first one's decide the second's shape).
  const explaining: Queryable = {
    async query(sql, params) {
      const plan = await postline.sql(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
      console.log(plan.map((r) => r['QUERY PLAN']).join('\n'));
      return postline.sql(sql, params);
    },
    one: async (sql, params) => (await postline.sql(sql, params))[0],
  };
  const page = { limit: 20 };
  const inbox = { folders: ['inbox', 'archive', 'sent'] as ('inbox' | 'archive' | 'sent')[] };
  for (const query of [commonWord, RARE_WORD, 'invoice overdue']) {
    console.log(`\n## search "${query}"`);
    await listThreads(explaining, inboxId, inbox, page, { query });
  }
  console.log(`\n## search "${commonWord}" from one sender`);
  await listThreads(explaining, inboxId, inbox, page, { query: commonWord, from: ['anna.martin@acme.example'] });
  console.log('\n## inbox folder, label on 10 %');
  const [{ id: label }] = await postline.sql(`SELECT id FROM inbox_labels WHERE inbox_id = $1 AND name = 'customers'`, [inboxId]);
  await listThreads(explaining, inboxId, { folders: ['inbox'], labels: [label] }, page);
  console.log('\n## unread');
  await listThreads(explaining, inboxId, { folders: ['inbox'], read: false }, page);
  console.log('\n## the inbox');
  await readInboxes(explaining, 'i.id = $1', [inboxId]);
}

async function timed(path: string): Promise<{ median: number; p95: number; items: number }> {
  const once = async () => {
    const t0 = performance.now();
    const res = await getJson(postline, path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return { ms: performance.now() - t0, items: Array.isArray(res.body.data) ? res.body.data.length : 1 };
  };
  const { items } = await once(); // warm: plans cached, pages in memory
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push((await once()).ms);
  times.sort((a, b) => a - b);
  return { median: percentile(times, 50), p95: percentile(times, 95), items };
}

async function fillInbox(inboxId: string, labels: Record<string, string>): Promise<void> {
  const [{ account_id: accountId }] = await postline.sql(`SELECT account_id FROM inboxes WHERE id = $1`, [inboxId]);
  // words(n): n words drawn with rank ~ uniform^2.5 (skewed to the top of the list).
  await postline.sql(
    `CREATE FUNCTION pg_temp.words(vocabulary text[], n int) RETURNS text LANGUAGE sql VOLATILE AS
     $$ SELECT string_agg(vocabulary[1 + floor(power(random(), 2.5) * array_length(vocabulary, 1))::int], ' ') FROM generate_series(1, n) $$`,
  );
  // 16,384 sentences of 8 words; a message's text is 6 to 13 of them, picked by hash (drawing
  // every word of 250,000 messages one by one takes minutes). sql() holds one client, so the
  // temporary function and table stay.
  await postline.sql(`CREATE TEMPORARY TABLE sentences (n int PRIMARY KEY, s text NOT NULL)`);
  await postline.sql(`INSERT INTO sentences SELECT n - 1, pg_temp.words($1::text[], 8) FROM generate_series(1, 16384) n`, [VOCABULARY]);
  await postline.sql(
    `INSERT INTO inbox_threads (id, inbox_id, account_id, subject, thread_subject, folder, read, email_count, has_attachment, last_message_at, created_at)
     SELECT gen_random_uuid(), $1, $2, s.subject, lower(s.subject),
            CASE WHEN p < 0.70 THEN 'inbox' WHEN p < 0.90 THEN 'archive' WHEN p < 0.95 THEN 'sent' WHEN p < 0.98 THEN 'spam' ELSE 'trash' END,
            random() >= 0.20, 1 + (i % 4), i % 7 = 0, now() - random() * interval '365 days', now() - interval '366 days'
       FROM generate_series(1, $3::int) i, LATERAL (SELECT random() AS p, initcap(pg_temp.words($4::text[], 3 + i % 5)) AS subject) s`,
    [inboxId, accountId, THREADS, VOCABULARY],
  );
  // Each thread's messages (email_count of them), the newest at the thread's last activity.
  await postline.sql(
    `INSERT INTO inbox_messages (id, thread_id, inbox_id, account_id, direction, source_email_id, message_id, references_ids,
       from_display, from_address, to_addresses, cc, bcc, reply_to, subject, html, text, attachments, read, search, created_at)
     SELECT gen_random_uuid(), t.id, t.inbox_id, t.account_id, d.direction, gen_random_uuid(), '<' || gen_random_uuid() || '@mail.example>', '{}',
            d.display, d.address, ARRAY[d.recipient], '{}', '{}', '{}', d.subject, NULL, d.body, '[]', t.read,
            setweight(to_tsvector('english', d.subject), 'A') || to_tsvector('english', d.display || ' ' || d.recipient) || to_tsvector('english', d.body),
            t.last_message_at - (t.email_count - k) * interval '3 hours'
       FROM inbox_threads t CROSS JOIN LATERAL generate_series(1, t.email_count) k
            CROSS JOIN LATERAL (SELECT $3::text[] AS first, $4::text[] AS last, $5::text[] AS company,
                                       (k % 2 = 0 OR t.folder = 'sent') AS outbound, hashtext(t.id::text) & 1023 AS who) c
            CROSS JOIN LATERAL (
              SELECT CASE WHEN c.outbound THEN 'outbound' ELSE 'inbound' END AS direction,
                     CASE WHEN c.outbound THEN 'Help desk <help@' || $2::text || '>'
                          ELSE initcap(c.first[1 + c.who % 16]) || ' ' || initcap(c.last[1 + c.who / 16 % 12]) || ' <' || person || '>' END AS display,
                     CASE WHEN c.outbound THEN 'help@' || $2::text ELSE person END AS address,
                     CASE WHEN c.outbound THEN person ELSE 'help@' || $2::text END AS recipient,
                     CASE WHEN k = 1 THEN t.subject ELSE 'Re: ' || t.subject END AS subject,
                     (SELECT string_agg(x.s, '. ') FROM generate_series(1, 6 + (hashtext(t.id::text || k) & 7)) j
                        JOIN sentences x ON x.n = hashtext(t.id::text || k || j) & 16383) || CASE WHEN random() < 0.0002 THEN ' ' || $6::text ELSE '' END AS body
                FROM (SELECT c.first[1 + c.who % 16] || '.' || c.last[1 + c.who / 16 % 12] || '@' || c.company[1 + c.who / 192 % 12] || '.example' AS person) p) d
      WHERE t.inbox_id = $1`,
    [inboxId, DOMAIN, FIRST_NAMES, LAST_NAMES, COMPANIES, RARE_WORD],
  );
  // Labels: customers on 10 %, billing on 3 %, urgent on 0.5 % of threads.
  await postline.sql(
    `INSERT INTO inbox_thread_labels (thread_id, label_id)
     SELECT t.id, l.id FROM inbox_threads t
       JOIN (VALUES ($2::uuid, 0.10), ($3::uuid, 0.03), ($4::uuid, 0.005)) AS l(id, share)
         ON (hashtext(t.id::text || l.id::text) & 65535) < l.share * 65536
      WHERE t.inbox_id = $1`,
    [inboxId, labels.customers, labels.billing, labels.urgent],
  );
  for (const table of ['inbox_threads', 'inbox_messages', 'inbox_thread_labels']) await postline.sql(`VACUUM ANALYZE ${table}`);
}
