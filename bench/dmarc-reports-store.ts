// DMARC aggregate reports at size (issue 36, "Speed"): "A 1 MB aggregate report (20,000 rows, as
// Google sends for a large domain) is stored in under 2 s and its domain's 30-day source summary
// answers in under 100 ms with a year of daily reports from 20 reporters."
//
// Postline runs as its own process (`postline start --roles api,smtp`), on the embedded
// PostgreSQL or on a fresh database of an external server (--db external, --database-url), with
// two verified domains:
//   year.postline-bench.test   a year of daily reports from 20 reporters (the fixture, see below),
//                              whose GET /domains/:id/dmarc-sources is timed over HTTP: 30 days
//                              (the default) and `since` a year ago, --calls calls each;
//   large.postline-bench.test  where the large reports go: --rows records (20,000) in Google's
//                              layout (test/fixtures/dmarc-reports/report-mail.ts, largeReport),
//                              gzipped, in a MIME message to the domain's recommended rua address
//                              (dmarc-reports@send.<domain>), sent over SMTP as Google's MTA would
//                              (STARTTLS, no AUTH), --runs times with distinct report ids. Timed:
//                              from the end of DATA (the message handed to the socket) to the 250,
//                              which Postline answers once the receiving transaction committed
//                              (parse + read + store). The big reports' period is yesterday, so
//                              this domain's 30-day summary (over runs × 20,000 rows) is timed too.
// Then, in the bench's own process, the same message taken apart: postal-mime's parse (the
// server's parser), readReportMail, and storeReportMail in a transaction of its own on
// Postline's database (committed, another report id), each statement timed: where the time of
// a store goes.
//
// The fixture (inserted by SQL, the real tables, not timed): 20 reporters × --days (365) daily
// reports, each of 5–50 rows (from a hash of reporter and day): rows 0–2 Postline's own addresses
// (POSTLINE_OUTBOUND_IPS, 500–5,000 messages each, passing), the rest drawn from 2,000 other
// addresses (forwarders, mailing lists, spoofers: 1–20 messages, a third passing). Then VACUUM
// ANALYZE, as autovacuum would have long done on a year of reports.
//
//   npx tsx bench/dmarc-reports-store.ts                          # embedded, 5 runs, 20 calls
//   npx tsx bench/dmarc-reports-store.ts --db external            # EXTERNAL_DATABASE_URL or postgres://postgres@127.0.0.1:5432/postgres
//   npx tsx bench/dmarc-reports-store.ts --database-url postgres://…/postgres   # external, that server
//   options: --rows 20000 --runs 5 --calls 20 --days 365 --reporters 20 --explain
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import MailComposer from 'nodemailer/lib/mail-composer';
import { openDb, type Queryable } from '../src/db/database.js';
import { readReportMail } from '../src/dmarc-reports/read-report-mail.js';
import { storeReportMail } from '../src/dmarc-reports/store-reports.js';
import type { DmarcAggregateReport } from '../src/dmarc-reports/report-types.js';
import { parseMime } from '../src/message/received-message.js';
import { gzip, largeReport } from '../test/fixtures/dmarc-reports/report-mail.js';
import { closeAgents, getJson, percentile } from './support/http-load.js';
import { CpuMeter } from './support/proc-cpu.js';
import { freePort, startPostlineProcess, type DbMode } from './support/postline-process.js';
import { waitForQuiet } from './support/quiet.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';
import { startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';
import { dotStuffed, SmtpSession } from './support/smtp-client.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded' },
    'database-url': { type: 'string' },
    rows: { type: 'string', default: '20000' },
    runs: { type: 'string', default: '5' },
    calls: { type: 'string', default: '20' },
    days: { type: 'string', default: '365' },
    reporters: { type: 'string', default: '20' },
    explain: { type: 'boolean', default: false },
  },
});
const DB: DbMode = args['database-url'] ? 'external' : (args.db as DbMode);
const ROWS = Number(args.rows);
const RUNS = Number(args.runs);
const CALLS = Number(args.calls);
const DAYS = Number(args.days);
const REPORTERS = Number(args.reporters);
const YEAR_DOMAIN = 'year.postline-bench.test';
const LARGE_DOMAIN = 'large.postline-bench.test';
const OWN_IPS = ['203.0.113.10', '203.0.113.11', '203.0.113.12'];
const DAY_MS = 86_400_000;
const STORE_TARGET_MS = 2000;
const SUMMARY_TARGET_MS = 100;
const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const p95 = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    95,
  );
/** Time spent in each statement of the in-process store, by its first words (summed over the runs). */
const statementMs = new Map<string, number>();

const dns = await startBenchDns();
const smtpPort = await freePort();
const postline = await startPostlineProcess({
  db: DB,
  externalUrl: args['database-url'] ?? process.env.EXTERNAL_DATABASE_URL,
  roles: ['api', 'smtp'],
  label: 'dmarc-reports-store',
  env: {
    POSTLINE_DNS_SERVERS: dns.address,
    POSTLINE_SMTP_PORTS: String(smtpPort),
    POSTLINE_SMTPS_PORTS: '',
    POSTLINE_OUTBOUND_IPS: OWN_IPS.join(','),
  },
});
// The SMTP host name's addresses (what the recommended SPF authorizes), as a real deployment publishes them.
dns.set('mta.postline-bench.test', { A: ['203.0.113.10'] });
const run = machine();
printMachine(run);
const results: object[] = [];
const printed: (string | number)[][] = [];

try {
  const yearId = await verifiedSendingDomain(postline, dns, { name: YEAR_DOMAIN });
  const largeId = await verifiedSendingDomain(postline, dns, { name: LARGE_DOMAIN });
  const [{ account_id: accountId, rp }] = await postline.sql<{ account_id: string; rp: string }>(
    'SELECT account_id, custom_return_path AS rp FROM domains WHERE id = $1',
    [largeId],
  );
  const rua = `dmarc-reports@${rp}.${LARGE_DOMAIN}`;

  // 1. The fixture: a year of daily reports from 20 reporters on year.postline-bench.test.
  const t = performance.now();
  const fixture = await loadYear(yearId, accountId);
  console.log(
    `fixture: ${fixture.reports} reports, ${fixture.rows} rows (${fixed(fixture.rows / fixture.reports, 1)} a report), ` +
      `${fixture.sources30} distinct sources in 30 days, ${fixture.sourcesYear} in the year; loaded and vacuumed in ${fixed((performance.now() - t) / 1000, 1)} s`,
  );

  // 2. The large report over SMTP: end of DATA → 250, RUNS times (plus one untimed to warm up).
  const yesterday = new Date(Math.floor((Date.now() - DAY_MS) / DAY_MS) * DAY_MS);
  const warm = await reportMessage('warm-up', yesterday, rua);
  console.log(
    `report: ${ROWS} rows, XML ${fixed(warm.xmlBytes / 1e6, 2)} MB, gzip ${fixed(warm.gzipBytes / 1e3)} KB, ` +
      `message ${fixed(warm.data.length / 1e3)} KB (base64)`,
  );
  await sendOverSmtp(warm.data, rua);
  await waitForQuiet('store over SMTP', run.nproc);
  const loadBefore = os.loadavg()[0]!;
  const storeMs: number[] = [];
  const cpuMs: { postline: number; postgres: number; other: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    const m = await reportMessage(`bench-${Date.now()}-${i}`, yesterday, rua);
    // CPU time of Postline and its PostgreSQL over the session (the part before DATA's end is a few ms): what load does not inflate.
    const meter = new CpuMeter(postline.pid, await postline.postgresPids());
    const started = performance.now();
    storeMs.push(await sendOverSmtp(m.data, rua));
    const shares = meter.stop(await postline.postgresPids());
    const ms = (pct: number) => (pct / 100) * (performance.now() - started);
    cpuMs.push({ postline: ms(shares.postline), postgres: ms(shares.postgres), other: ms(shares.other) });
    console.log(
      `  store run ${i + 1}: ${fixed(storeMs[i]!)} ms; CPU Postline ${fixed(cpuMs[i]!.postline)} ms, PostgreSQL ${fixed(cpuMs[i]!.postgres)} ms; ` +
        `other processes ${fixed(cpuMs[i]!.other)} ms${shares.otherTop ? ` (${shares.otherTop})` : ''}`,
    );
  }
  const [stored] = await postline.sql<{ reports: number; rows: number }>(
    'SELECT count(*)::int AS reports, sum((SELECT count(*) FROM dmarc_report_rows r WHERE r.report_id = d.id))::int AS rows FROM dmarc_reports d WHERE domain_id = $1',
    [largeId],
  );
  if (stored!.reports !== RUNS + 1 || stored!.rows !== (RUNS + 1) * ROWS)
    throw new Error(`stored ${JSON.stringify(stored)}; expected ${RUNS + 1} reports of ${ROWS} rows`);
  const storeResult = {
    figure: 'store over SMTP',
    rows: ROWS,
    xmlBytes: warm.xmlBytes,
    gzipBytes: warm.gzipBytes,
    messageBytes: warm.data.length,
    medianMs: median(storeMs),
    minMs: Math.min(...storeMs),
    maxMs: Math.max(...storeMs),
    runsMs: storeMs,
    postlineCpuMs: median(cpuMs.map((c) => c.postline)),
    postgresCpuMs: median(cpuMs.map((c) => c.postgres)),
    otherCpuMs: median(cpuMs.map((c) => c.other)),
    load1: loadBefore,
  };
  results.push(storeResult);
  printed.push([
    `${ROWS}-row report stored (end of DATA → 250)`,
    `${fixed(storeResult.medianMs)} ms`,
    `${fixed(storeResult.minMs)}–${fixed(storeResult.maxMs)}; CPU ${fixed(storeResult.postlineCpuMs)} + PG ${fixed(storeResult.postgresCpuMs)}`,
    `< ${STORE_TARGET_MS} ms`,
    storeResult.medianMs < STORE_TARGET_MS ? 'met' : 'NOT met',
  ]);

  // 3. Where a store's time goes, in this process: parse, read, store (its own transaction, committed).
  const parts = await breakdown(rua, yesterday, accountId, largeId);
  results.push({ figure: 'store, in parts', rows: ROWS, ...parts });

  // 4. The sources summary over HTTP.
  await getJson(postline, `/domains/${yearId}/dmarc-sources`); // warm: plans, the DNS answer for the host name
  await waitForQuiet('sources summary', run.nproc);
  const aYearAgo = new Date(Date.now() - (DAYS + 1) * DAY_MS).toISOString();
  for (const [label, domainId, query, target] of [
    ['30-day sources, a year of reports', yearId, '', SUMMARY_TARGET_MS],
    ['sources since a year ago', yearId, `?since=${encodeURIComponent(aYearAgo)}`, undefined],
    [`30-day sources, ${RUNS + 1} × ${ROWS}-row reports`, largeId, '', undefined],
  ] as const) {
    const ms: number[] = [];
    let sources = 0;
    let hasMore = false;
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now();
      const res = await getJson(postline, `/domains/${domainId}/dmarc-sources${query}`);
      ms.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`dmarc-sources → ${res.status} ${JSON.stringify(res.body)}`);
      sources = res.body.data.length;
      hasMore = res.body.has_more;
    }
    const r = { figure: label, calls: CALLS, medianMs: median(ms), p95Ms: p95(ms), sources, hasMore, load1: os.loadavg()[0] };
    results.push(r);
    printed.push([
      `${label} (${sources}${hasMore ? '+' : ''} sources)`,
      `${fixed(r.medianMs, 1)} ms`,
      `p95 ${fixed(r.p95Ms, 1)}`,
      target ? `< ${target} ms` : '—',
      target ? (r.medianMs < target ? 'met' : 'NOT met') : '',
    ]);
  }
  if (args.explain) {
    for (const [label, domainId, since] of [
      ['30 days', yearId, new Date(Date.now() - 30 * DAY_MS)],
      ['a year', yearId, new Date(aYearAgo)],
    ] as const) {
      const plan = await postline.sql<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, BUFFERS)
         SELECT source_ip, sum(count)::bigint AS messages,
                coalesce(sum(count) FILTER (WHERE dkim_aligned = 'pass' OR spf_aligned = 'pass'), 0)::bigint AS passing
           FROM dmarc_report_rows
          WHERE domain_id = $1 AND period_begin >= $2 AND account_id = $3
          GROUP BY source_ip ORDER BY messages DESC, source_ip LIMIT 1001`,
        [domainId, since, accountId],
      );
      console.log(`\nplan, ${label}:\n${plan.map((p) => p['QUERY PLAN']).join('\n')}`);
    }
  }
  console.log(
    `\n# ${DB} PostgreSQL; load average at the end: ${os
      .loadavg()
      .map((l) => fixed(l, 2))
      .join(' ')}`,
  );
  console.log(table(['figure', 'median', 'spread', 'target', ''], printed));
  console.log(
    `store in parts (medians, this process): compose ${fixed(parts.composeMs)} ms; postal-mime parse ${fixed(parts.parseMs)} ms; ` +
      `readReportMail ${fixed(parts.readMs)} ms (CPU ${fixed(parts.readCpuMs)}); storeReportMail + COMMIT ${fixed(parts.storeMs)} ms`,
  );
} finally {
  closeAgents();
  await postline.stop();
  await dns.stop();
}
console.log(
  `results appended to ${appendResults(
    'dmarc-reports-store',
    run,
    results.map((r) => ({ db: DB, days: DAYS, reporters: REPORTERS, runs: RUNS, ...r })),
  )}`,
);
process.exit(0);

/** The large report as Google mails it: --rows records about LARGE_DOMAIN, its own report id, gzipped, to the rua address. */
async function reportMessage(reportId: string, begin: Date, to: string) {
  const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
  const end = new Date(begin.getTime() + DAY_MS - 1000);
  const xml = largeReport(ROWS)
    .replaceAll('example.com', LARGE_DOMAIN)
    .replace(/<report_id>[^<]*<\/report_id>/, `<report_id>${reportId}</report_id>`)
    .replace(/<begin>\d+<\/begin>/, `<begin>${seconds(begin)}</begin>`)
    .replace(/<end>\d+<\/end>/, `<end>${seconds(end)}</end>`);
  const gz = gzip(xml);
  const raw = await new MailComposer({
    from: 'noreply-dmarc-support@google.com',
    to,
    subject: `Report domain: ${LARGE_DOMAIN} Submitter: google.com Report-ID: ${reportId}`,
    text: 'This is an aggregate report from google.com.',
    attachments: [{ filename: `google.com!${LARGE_DOMAIN}!${seconds(begin)}!${seconds(end)}.xml.gz`, contentType: 'application/gzip', content: gz }],
  })
    .compile()
    .build();
  return { xmlBytes: Buffer.byteLength(xml), gzipBytes: gz.length, raw, data: dotStuffed(raw) };
}

/** Sends one message as an MTA delivering inbound mail; returns ms from the end of DATA (the body handed to the socket) to the 250. */
async function sendOverSmtp(data: Buffer, to: string): Promise<number> {
  const session = await SmtpSession.open({ port: smtpPort, implicit: false }, 'mail-sor-f41.google.com');
  // The session's command/socket are private: the timing needs the body's end apart from the 250.
  const s = session as unknown as { command(line: string, code: string): Promise<string>; socket: import('node:net').Socket };
  await s.command('MAIL FROM:<noreply-dmarc-support@google.com>', '250');
  await s.command(`RCPT TO:<${to}>`, '250');
  await s.command('DATA', '354');
  await new Promise<void>((resolve, reject) => s.socket.write(data, (err) => (err ? reject(err) : resolve())));
  const started = performance.now();
  const reply = await s.command('.', '250');
  const ms = performance.now() - started;
  session.quit();
  if (!reply.startsWith('250')) throw new Error(reply);
  return ms;
}

/** The same message taken apart in this process: compose, parse, read, and the store in a transaction of its own on Postline's database. */
async function breakdown(rua: string, begin: Date, accountId: string, domainId: string) {
  const db = openDb(await databaseUrl(), { max: 1, applicationName: 'bench' });
  const composeMs: number[] = [];
  const parseMs: number[] = [];
  const readMs: number[] = [];
  const readCpuMs: number[] = [];
  const storeMs: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      const m = await reportMessage(`parts-${Date.now()}-${i}`, begin, rua);
      composeMs.push(performance.now() - t);
      t = performance.now();
      const email = await parseMime(m.raw);
      parseMs.push(performance.now() - t);
      const cpu = process.cpuUsage();
      t = performance.now();
      const reading = readReportMail(email);
      readMs.push(performance.now() - t);
      const used = process.cpuUsage(cpu);
      readCpuMs.push((used.user + used.system) / 1000);
      if ((reading?.reports[0] as DmarcAggregateReport | undefined)?.rows.length !== ROWS) throw new Error('the report was not read whole');
      t = performance.now();
      const intake = await db.tx((q) =>
        storeReportMail(timed(q), reading, [{ accountId, recipient: rua, atReportMailbox: true }], {
          sourceIp: '209.85.218.41',
          mailFrom: 'noreply-dmarc-support@google.com',
        }),
      );
      storeMs.push(performance.now() - t);
      if (intake.tallies.length !== 1 || intake.tallies[0]!.outcome !== 'stored') throw new Error(`not stored: ${JSON.stringify(intake)}`);
    }
  } finally {
    await db.close();
  }
  void domainId;
  const statements = Object.fromEntries([...statementMs].map(([k, v]) => [k, v / RUNS]));
  console.log(`storeReportMail's statements, mean ms a store: ${[...statementMs].map(([k, v]) => `${k} ${fixed(v / RUNS)}`).join('; ')}`);
  return {
    composeMs: median(composeMs),
    parseMs: median(parseMs),
    readMs: median(readMs),
    readCpuMs: median(readCpuMs),
    storeMs: median(storeMs),
    storeRunsMs: storeMs,
    statementMs: statements,
  };
}

function timed(q: Queryable): Queryable {
  const add = (sql: string, ms: number) => {
    const key = sql.trim().split(/\s+/).slice(0, 3).join(' ');
    statementMs.set(key, (statementMs.get(key) ?? 0) + ms);
  };
  return {
    async query(sql, params, name) {
      const t = performance.now();
      try {
        return await q.query(sql, params, name);
      } finally {
        add(sql, performance.now() - t);
      }
    },
    async one(sql, params) {
      const t = performance.now();
      try {
        return await q.one(sql, params);
      } finally {
        add(sql, performance.now() - t);
      }
    },
  } as Queryable;
}

/** Postline's database: the external one, or the embedded server's (port and password in its data directory). */
async function databaseUrl(): Promise<string> {
  if (postline.databaseUrl) return postline.databaseUrl;
  const port = Number(fs.readFileSync(path.join(postline.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[3]);
  const password = fs.readFileSync(path.join(postline.dataDir, 'pg-password'), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/** 20 reporters × DAYS daily reports of 5–50 rows on `domainId`, by SQL into the real tables; then VACUUM ANALYZE. */
async function loadYear(domainId: string, accountId: string) {
  const reporters = [
    'google.com',
    'Outlook.com',
    'Yahoo',
    'Mail.Ru',
    'AMAZON-SES',
    'Comcast',
    'Fastmail Pty Ltd',
    'GMX',
    'WEB.DE',
    'Orange',
    'mimecast.org',
    'Enterprise Outlook',
    'cloudflare.com',
    'Proofpoint',
    'zoho.com',
    'Seznam.cz',
    'Yandex',
    'freenet.de',
    't-online.de',
    'Apple Inc.',
  ].slice(0, REPORTERS);
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  // Sizes, addresses and results from hashes of (reporter, day, position): the same fixture every run.
  for (let d = 1; d <= DAYS; d++) {
    const begin = new Date(today - d * DAY_MS);
    await postline.sql(
      `WITH reports AS (
         INSERT INTO dmarc_reports (id, account_id, domain_id, reporter_org, reporter_email, reporter_key, report_id, period_begin, period_end,
           policy_domain, policy, report_schema, messages, passing, source_ip, mail_from, created_at)
         SELECT gen_random_uuid(), $1::uuid, $2::uuid, org, 'dmarc@' || lower(replace(org, ' ', '')), lower(org) || '|dmarc@' || lower(replace(org, ' ', '')),
                md5(org || $3::timestamptz::text), $3::timestamptz, $3::timestamptz + interval '1 day' - interval '1 second', $4::text,
                '{"p":"none","sp":"none","pct":100,"adkim":"r","aspf":"r","np":null}', 'rfc7489', 0, 0, '192.0.2.1', 'dmarc@reporter.example',
                $3::timestamptz + interval '1 day' + interval '3 hours'
           FROM unnest($5::text[]) AS org
         RETURNING id, reporter_org, period_begin
       )
       INSERT INTO dmarc_report_rows (report_id, position, account_id, domain_id, period_begin, source_ip, count, disposition, dkim_aligned, spf_aligned,
         header_from, envelope_from, envelope_to, auth_results)
       SELECT r.id, pos, $1::uuid, $2::uuid, r.period_begin, v.ip, v.n, 'none', v.res, v.res, $4::text, 'send.' || $4::text, NULL,
              jsonb_build_object('dkim', jsonb_build_array(jsonb_build_object('domain', $4::text, 'selector', 'postline', 'result', v.res)),
                                 'spf', jsonb_build_array(jsonb_build_object('domain', 'send.' || $4::text, 'scope', 'mfrom', 'result', v.res)),
                                 'overrides', '[]'::jsonb)
         FROM reports r
        CROSS JOIN LATERAL generate_series(0, 4 + abs(hashtext(r.reporter_org || r.period_begin::text)) % 46) AS pos
        CROSS JOIN LATERAL (SELECT abs(hashtext(r.reporter_org || r.period_begin::text || ':' || pos)) AS h) hashed
        CROSS JOIN LATERAL (
          SELECT CASE WHEN pos < 3 THEN ($6::text[])[pos + 1] ELSE '198.18.' || (hashed.h % 2000 / 250) || '.' || (hashed.h % 2000 % 250 + 1) END AS ip,
                 CASE WHEN pos < 3 THEN 500 + (hashed.h / 7) % 4501 ELSE 1 + (hashed.h / 7) % 20 END AS n,
                 CASE WHEN pos < 3 OR (hashed.h / 131) % 3 = 0 THEN 'pass' ELSE 'fail' END AS res
        ) v`,
      [accountId, domainId, begin, YEAR_DOMAIN, reporters, OWN_IPS],
    );
  }
  await postline.sql(
    `UPDATE dmarc_reports d SET messages = s.messages, passing = s.passing
       FROM (SELECT report_id, sum(count) AS messages, coalesce(sum(count) FILTER (WHERE dkim_aligned = 'pass' OR spf_aligned = 'pass'), 0) AS passing
               FROM dmarc_report_rows WHERE domain_id = $1 GROUP BY report_id) s
      WHERE d.id = s.report_id`,
    [domainId],
  );
  await postline.sql('VACUUM ANALYZE dmarc_reports');
  await postline.sql('VACUUM ANALYZE dmarc_report_rows');
  const [c] = await postline.sql<{ reports: number; rows: number; sources30: number; sourcesyear: number }>(
    `SELECT (SELECT count(*)::int FROM dmarc_reports WHERE domain_id = $1) AS reports,
            (SELECT count(*)::int FROM dmarc_report_rows WHERE domain_id = $1) AS rows,
            (SELECT count(DISTINCT source_ip)::int FROM dmarc_report_rows WHERE domain_id = $1 AND period_begin >= now() - interval '30 days') AS sources30,
            (SELECT count(DISTINCT source_ip)::int FROM dmarc_report_rows WHERE domain_id = $1) AS sourcesyear`,
    [domainId],
  );
  return { reports: c!.reports, rows: c!.rows, sources30: c!.sources30, sourcesYear: c!.sourcesyear };
}
