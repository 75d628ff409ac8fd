// Memory with a large queue (issue 2, "Speed"): peak RSS of the Postline process, and PSS of its
// PostgreSQL, while 100,000 emails are accepted and sit in the queue, on both databases.
//
// Phase 1 "accept": Postline --roles api (no worker), 100,000 emails through /emails/batch.
// Phase 2 "drain":  a fresh Postline --roles worker on the same database starts with those
//                   100,000 queued and delivers them to a loopback counting sink (bounded by
//                   --drain-timeout; the count reached is reported). Its time runs from the
//                   spawn of the process (start-up included) until the sink has them all.
// Node's peak is the kernel's VmHWM of the process; PostgreSQL's is the largest sampled PSS sum
// over the embedded server's processes (every backend maps shared_buffers, so RSS would count it
// once per backend). On the external server only the backends of postline_bench are counted.
//
//   npx tsx bench/memory.ts                               # both databases, ~4 minutes
//   npx tsx bench/memory.ts --db embedded --emails 20000 --no-drain
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { CountingSink } from './support/counting-sink.js';
import { batchBody } from './support/emails.js';
import { closeAgents, closedLoop } from './support/http-load.js';
import { startPostlineProcess, type DbMode, type PostlineProcess } from './support/postline-process.js';
import { CpuMeter } from './support/proc-cpu.js';
import { MemorySampler, mib, procStatus } from './support/proc-memory.js';
import { waitForQuiet } from './support/quiet.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';
import { startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded,external' },
    emails: { type: 'string', default: '100000' },
    clients: { type: 'string', default: '4' },
    drain: { type: 'boolean', default: true },
    'drain-timeout': { type: 'string', default: '150' },
  },
  allowNegative: true,
});

interface Row {
  db: DbMode;
  phase: 'accept' | 'drain';
  roles: string;
  emails: number;
  seconds: number;
  perSecond: number;
  nodeBaselineMiB: number;
  nodePeakMiB: number;
  nodeEndMiB: number;
  pgPeakPssMiB: number;
  pgProcesses: number;
  dbSizeMiB: number;
  note?: string;
}

/** The pids whose memory counts as "PostgreSQL" for this database, refreshed every second. */
function pgPidSource(postline: PostlineProcess): { pids: () => number[]; stop: () => void } {
  let pids: number[] = postline.embeddedPgPids();
  const refresh = () =>
    postline.postgresPids().then(
      (found) => (pids = found),
      () => {},
    );
  void refresh();
  const timer = setInterval(refresh, 1000);
  return { pids: () => pids, stop: () => clearInterval(timer) };
}

async function dbSizeMiB(postline: PostlineProcess): Promise<number> {
  const [r] = await postline.sql(`SELECT pg_database_size(current_database()) AS bytes`);
  return Math.round(Number(r.bytes) / 2 ** 20);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function benchDatabase(db: DbMode, dns: Awaited<ReturnType<typeof startBenchDns>>, sink: CountingSink): Promise<Row[]> {
  const total = Number(args.emails);
  const rows: Row[] = [];
  console.log(`\n## ${db}: accepting ${total} emails with --roles api`);
  let postline = await startPostlineProcess({
    db,
    roles: ['api'],
    env: { POSTLINE_DNS_SERVERS: dns.address, POSTLINE_OUTBOUND_PORT: String(sink.port) },
    externalUrl: process.env.EXTERNAL_DATABASE_URL,
    label: 'memory',
  });
  try {
    await verifiedSendingDomain(postline, dns);
    await waitForQuiet(`${db} accept`, os.availableParallelism());
    let pg = pgPidSource(postline);
    const baseline = procStatus(postline.pid)!.rssKiB;
    let sampler = new MemorySampler(postline.pid, pg.pids);
    const load = await closedLoop({
      api: postline,
      path: '/emails/batch',
      concurrency: Number(args.clients),
      maxRequests: Math.ceil(total / 100),
      next: (i) => batchBody(i * 100, Math.min(100, total - i * 100)),
      units: (reply) => reply.body?.data?.length ?? 0,
    });
    await sleep(2000); // let the request-log buffer flush and the heap settle
    sampler.stop();
    pg.stop();
    const [queued] = await postline.sql(`SELECT count(*) AS n FROM deliveries WHERE status = 'queued'`);
    rows.push({
      db,
      phase: 'accept',
      roles: 'api',
      emails: Number(queued.n),
      seconds: Math.round(load.seconds * 10) / 10,
      perSecond: Math.round(load.units / load.seconds),
      nodeBaselineMiB: mib(baseline),
      nodePeakMiB: mib(sampler.nodeHwmKiB()),
      nodeEndMiB: mib(procStatus(postline.pid)!.rssKiB),
      pgPeakPssMiB: mib(sampler.peakPgPssKiB),
      pgProcesses: sampler.peakPgProcesses,
      dbSizeMiB: await dbSizeMiB(postline),
      ...(load.errors ? { note: `${load.errors} errors: ${load.firstError}` } : {}),
    });
    console.log(`accepted ${load.units} in ${fixed(load.seconds, 1)} s; ${queued.n} queued`);

    if (args.drain) {
      console.log(`## ${db}: draining with a fresh --roles worker`);
      const want = Number(queued.n);
      await postline.stop({ keepDatabase: true });
      sink.reset();
      const spawned = performance.now();
      postline = await postline.restart(['worker']);
      pg = pgPidSource(postline);
      sampler = new MemorySampler(postline.pid, pg.pids);
      const cpu = new CpuMeter(postline.pid, []);
      const deadline = spawned + Number(args['drain-timeout']) * 1000;
      while (sink.messages < want && performance.now() < deadline) await sleep(100);
      const seconds = (performance.now() - spawned) / 1000;
      const shares = cpu.stop();
      sampler.stop();
      pg.stop();
      const got = sink.messages;
      const steady = sink.lastAt > sink.firstAt ? got / ((sink.lastAt - sink.firstAt) / 1000) : NaN;
      rows.push({
        db,
        phase: 'drain',
        roles: 'worker',
        emails: got,
        seconds: Math.round(seconds * 10) / 10,
        perSecond: Math.round(got / seconds),
        nodeBaselineMiB: NaN,
        nodePeakMiB: mib(sampler.nodeHwmKiB()),
        nodeEndMiB: mib(procStatus(postline.pid)?.rssKiB ?? 0),
        pgPeakPssMiB: mib(sampler.peakPgPssKiB),
        pgProcesses: sampler.peakPgProcesses,
        dbSizeMiB: await dbSizeMiB(postline),
        note:
          `${got < want ? `drain timed out: ${got} of ${want} delivered; ` : ''}` +
          `first message ${fixed((sink.firstAt - spawned) / 1000, 1)} s after the worker was started; ${fixed(steady)} emails/s from first to last; ` +
          `worker CPU ${shares.postline}% of a core (main thread ${shares.postlineMain}%), ${fixed(((shares.postline / 100) * seconds * 1e6) / Math.max(1, got))} µs per email`,
      });
      console.log(`delivered ${got} of ${want} in ${fixed(seconds, 1)} s (${rows.at(-1)!.note})`);
    }
  } finally {
    await postline.stop();
  }
  return rows;
}

async function main(): Promise<void> {
  const run = machine();
  printMachine(run);
  const dns = await startBenchDns();
  const sink = await new CountingSink().start();
  const rows: Row[] = [];
  try {
    for (const db of args.db!.split(',') as DbMode[]) rows.push(...(await benchDatabase(db, dns, sink)));
  } finally {
    closeAgents();
    await sink.stop();
    await dns.stop();
  }
  console.log(
    '\n' +
      table(
        [
          'database',
          'phase',
          'roles',
          'emails',
          's',
          'emails/s',
          'node idle MiB',
          'node peak RSS MiB',
          'node end MiB',
          'PG peak PSS MiB',
          'PG procs',
          'DB size MiB',
        ],
        rows.map((r) => [
          r.db,
          r.phase,
          r.roles,
          r.emails,
          fixed(r.seconds, 1),
          r.perSecond,
          fixed(r.nodeBaselineMiB),
          r.nodePeakMiB,
          r.nodeEndMiB,
          r.pgPeakPssMiB,
          r.pgProcesses,
          r.dbSizeMiB,
        ]),
      ),
  );
  for (const r of rows) if (r.note) console.log(`! ${r.db} ${r.phase}: ${r.note}`);
  console.log(`\nresults appended to ${appendResults('memory', run, rows)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
