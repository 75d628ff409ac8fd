// Accept throughput of the API (issue 2, "Speed"): emails/s committed through POST /emails/batch
// (100 × ~2 KB html per request, several clients) and requests/s with p50/p99 latency of single
// POST /emails at a few concurrency levels, on the embedded PostgreSQL and on an external server.
//
// Postline runs as its own process with --roles api only, so no delivery worker competes for the
// CPU: this measures accepting (validate, compose MIME, DKIM-sign, commit email + queue entry).
// The load generator runs on the same 2-core machine and takes CPU from Postline.
//
//   npx tsx bench/accept.ts                       # both databases, ~4 minutes on a quiet machine
//   npx tsx bench/accept.ts --db embedded --batch-seconds 10 --batch-clients 4 --single-levels 1,16
//   npx tsx bench/accept.ts --db embedded --single-levels none   # batch only (--batch-seconds 0: singles only)
//   npx tsx bench/accept.ts --cpu-prof /tmp/prof  # V8 CPU profile of Postline (see bench/profile-top.ts)
// Env: EXTERNAL_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres; a database
// postline_bench is created there and dropped after), POSTLINE_ENTRY=dist to run the build.
import { parseArgs } from 'node:util';
import { batchBody, HTML_BYTES, singleBody } from './support/emails.js';
import { closeAgents, closedLoop, percentile, type LoadResult } from './support/http-load.js';
import { CpuMeter, type CpuShares } from './support/proc-cpu.js';
import { waitForQuiet } from './support/quiet.js';
import { startPostlineProcess, type DbMode, type PostlineProcess } from './support/postline-process.js';
import { appendResults, fixed, machine, printMachine, table, type Machine } from './support/report.js';
import { startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';

const TARGET_BATCH = 5000; // emails/s through /emails/batch
const TARGET_SINGLE = 1000; // requests/s of POST /emails

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded,external' },
    'batch-seconds': { type: 'string', default: '20' },
    'batch-clients': { type: 'string', default: '4,16' },
    'single-seconds': { type: 'string', default: '10' },
    'single-levels': { type: 'string', default: '1,10,50' },
    'warmup-seconds': { type: 'string', default: '3' },
    'cpu-prof': { type: 'string' },
  },
});

interface Row {
  db: DbMode;
  kind: 'batch' | 'single';
  concurrency: number;
  seconds: number;
  requests: number;
  errors: number;
  emails: number;
  committed: number;
  /** Queue entries (deliveries rows) committed: one per email here, each has one recipient. */
  queued: number;
  emailsPerSecond: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** % of one core used during the measurement by Postline, its PostgreSQL, the generator, anything else. */
  cpu: CpuShares;
  /** CPU time per committed email: less sensitive to other load on the machine than the rates. */
  postlineCpuUsPerEmail: number;
  postgresCpuUsPerEmail: number;
  firstError?: string;
}

function row(db: DbMode, kind: Row['kind'], r: LoadResult, committed: number, queued: number, cpu: CpuShares): Row {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b);
  return {
    db,
    kind,
    concurrency: r.concurrency,
    seconds: Math.round(r.seconds * 100) / 100,
    requests: r.requests,
    errors: r.errors,
    emails: r.units,
    committed,
    queued,
    emailsPerSecond: Math.round(committed / r.seconds),
    requestsPerSecond: Math.round(r.requests / r.seconds),
    p50Ms: Math.round(percentile(sorted, 50) * 10) / 10,
    p99Ms: Math.round(percentile(sorted, 99) * 10) / 10,
    cpu,
    postlineCpuUsPerEmail: committed ? Math.round((cpu.postline / 100) * 1e6 * (r.seconds / committed)) : NaN,
    postgresCpuUsPerEmail: committed ? Math.round((cpu.postgres / 100) * 1e6 * (r.seconds / committed)) : NaN,
    ...(r.firstError ? { firstError: r.firstError } : {}),
  };
}

/** Emails and queue entries in the database: what was committed, whatever the replies said. */
async function countCommitted(p: PostlineProcess): Promise<{ emails: number; queued: number }> {
  const [r] = await p.sql('SELECT (SELECT count(*) FROM emails) AS emails, (SELECT count(*) FROM deliveries) AS queued');
  return { emails: Number(r.emails), queued: Number(r.queued) };
}

async function benchDatabase(db: DbMode, dns: Awaited<ReturnType<typeof startBenchDns>>, run: Machine): Promise<Row[]> {
  const rows: Row[] = [];
  console.log(`\n## ${db}: starting postline --roles api`);
  const postline = await startPostlineProcess({
    db,
    roles: ['api'],
    env: { POSTLINE_DNS_SERVERS: dns.address },
    externalUrl: process.env.EXTERNAL_DATABASE_URL,
    cpuProfDir: args['cpu-prof'],
    label: 'accept',
  });
  try {
    await verifiedSendingDomain(postline, dns);
    const batchBodies = Array.from({ length: 32 }, (_, k) => batchBody(k * 100, 100));
    const singleBodies = Array.from({ length: 2000 }, (_, k) => singleBody(1_000_000 + k));
    const warmupMs = Number(args['warmup-seconds']) * 1000;
    const batch = (concurrency: number, durationMs: number) =>
      closedLoop({
        api: postline,
        path: '/emails/batch',
        concurrency,
        durationMs,
        next: (i) => batchBodies[i % batchBodies.length]!,
        units: (reply) => reply.body?.data?.length ?? 0,
      });
    const single = (concurrency: number, durationMs: number) =>
      closedLoop({
        api: postline,
        path: '/emails',
        concurrency,
        durationMs,
        next: (i) => singleBodies[i % singleBodies.length]!,
        units: (reply) => (reply.body?.id ? 1 : 0),
      });

    const batchSeconds = Number(args['batch-seconds']);
    const levels = args['single-levels']!.split(',')
      .map(Number)
      .filter((n) => n > 0);
    const measured = async (load: () => Promise<LoadResult>, kind: Row['kind']) => {
      await waitForQuiet(`${db} ${kind}`, run.nproc);
      const before = await countCommitted(postline);
      const cpu = new CpuMeter(postline.pid, await postline.postgresPids());
      const result = await load();
      const shares = cpu.stop(await postline.postgresPids());
      const after = await countCommitted(postline);
      rows.push(row(db, kind, result, after.emails - before.emails, after.queued - before.queued, shares));
      return rows.at(-1)!;
    };
    const batchLevels =
      batchSeconds > 0
        ? args['batch-clients']!.split(',')
            .map(Number)
            .filter((n) => n > 0)
        : [];
    if (batchLevels.length) await batch(4, warmupMs); // JIT, pool connections, page cache
    for (const clients of batchLevels) {
      const b = await measured(() => batch(clients, batchSeconds * 1000), 'batch');
      console.log(`batch × ${b.concurrency}: ${b.emailsPerSecond} emails/s`);
    }

    if (levels.length) await single(10, warmupMs);
    for (const level of levels) {
      const s = await measured(() => single(level, Number(args['single-seconds']) * 1000), 'single');
      console.log(`single × ${level}: ${s.requestsPerSecond} req/s`);
    }
  } finally {
    await postline.stop();
  }
  return rows;
}

async function main(): Promise<void> {
  const run = machine();
  printMachine(run);
  console.log(`# html per email: ${HTML_BYTES} bytes; Postline --roles api; generator: node:http keep-alive, same machine`);
  const dns = await startBenchDns();
  const rows: Row[] = [];
  try {
    for (const db of args.db!.split(',') as DbMode[]) rows.push(...(await benchDatabase(db, dns, run)));
  } finally {
    closeAgents();
    await dns.stop();
  }
  console.log(
    '\n' +
      table(
        [
          'database',
          'endpoint',
          'clients',
          's',
          'requests',
          'errors',
          'emails committed',
          'emails/s',
          'req/s',
          'p50 ms',
          'p99 ms',
          'vs target',
          'CPU % postline (main)/pg/gen/other',
          'CPU µs/email postline/pg',
        ],
        rows.map((r) => [
          r.db,
          r.kind === 'batch' ? 'POST /emails/batch ×100' : 'POST /emails',
          r.concurrency,
          fixed(r.seconds, 1),
          r.requests,
          r.errors,
          r.committed,
          r.emailsPerSecond,
          r.requestsPerSecond,
          fixed(r.p50Ms, 1),
          fixed(r.p99Ms, 1),
          r.kind === 'batch'
            ? `${fixed((r.emailsPerSecond / TARGET_BATCH) * 100)}% of ${TARGET_BATCH}/s`
            : `${fixed((r.requestsPerSecond / TARGET_SINGLE) * 100)}% of ${TARGET_SINGLE}/s`,
          `${r.cpu.postline} (${r.cpu.postlineMain})/${r.cpu.postgres}/${r.cpu.generator}/${r.cpu.other}`,
          `${r.postlineCpuUsPerEmail}/${r.postgresCpuUsPerEmail}`,
        ]),
      ),
  );
  for (const r of rows)
    if (r.cpu.other >= 10) console.log(`! ${r.db} ${r.kind} ×${r.concurrency}: other processes used ${r.cpu.other}% of a core (${r.cpu.otherTop})`);
  for (const r of rows) if (r.firstError) console.log(`! ${r.db} ${r.kind} ×${r.concurrency}: ${r.errors} errors, first: ${r.firstError}`);
  for (const r of rows) {
    if (r.committed !== r.emails || r.queued !== r.emails) {
      console.log(`! ${r.db} ${r.kind} ×${r.concurrency}: ${r.emails} acknowledged, ${r.committed} emails and ${r.queued} queue entries committed`);
    }
  }
  console.log(
    '(CPU: % of one core during the measurement, the machine has 200%; "main" is the event-loop thread of Postline; "other" is work outside this bench.)',
  );
  console.log(`\nresults appended to ${appendResults('accept', run, rows)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
