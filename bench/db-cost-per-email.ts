// What one email costs PostgreSQL, accepted through the API and delivered to an MX host: rows
// written per table, bytes kept per table (indexes and TOAST included), statements (≈ round
// trips), transactions, WAL bytes / records / full-page images, and the server's CPU. Read from
// PostgreSQL's own counters before and after N emails (pg_stat_wal, pg_stat_database,
// pg_stat_user_tables, pg_stat_statements), on Postline's embedded server (a private one per run,
// so the WAL and the counters are this run's alone), restarted once with pg_stat_statements
// preloaded. docs/SCALING.md is written from these figures.
//
// Layout per run: one `--roles api` process and 1 or 2 `--roles worker` processes (--workers
// 1,2,1,2 runs them in turn, alternating, each on a fresh data directory). Per run:
//   warm-up (200 emails, delivered) → CHECKPOINT → 11 s for the counters to settle → snapshot A
//   → 10 s idle → snapshot B (the nodes' own background: polling loops, heartbeats, pings)
//   → N emails by POST /emails/batch (100 per request, 4 clients; --batch 1: POST /emails, 16
//   clients) until the sink has them all
//   → snapshot C1 (statements, WAL position: counted at once) → 11 s → snapshot C2 (rows,
//   bytes, transactions, WAL records: reported by the backends within 10 s; the idle
//   background of C1 → C2 is taken off). Divided by N. The polling loops' statements during the
//   run are counted: at a lower rate they are a larger part of each email.
// Usage: npx tsx bench/db-cost-per-email.ts [--n 5000] [--workers 1,2,1,2] [--batch 100|1]
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { CountingSink } from './support/counting-sink.js';
import { batchBody, singleBody } from './support/emails.js';
import { closeAgents, closedLoop } from './support/http-load.js';
import { CpuMeter } from './support/proc-cpu.js';
import { startPostlineProcess, type PostlineProcess } from './support/postline-process.js';
import { appendResults, machine, printMachine, table } from './support/report.js';
import { startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '5000' },
    workers: { type: 'string', default: '1,2' },
    // 100: POST /emails/batch with 100 emails per request; 1: POST /emails, one email per request (16 clients).
    batch: { type: 'string', default: '100' },
  },
});

const STATS_SETTLE_MS = 11_000; // idle backends report their counters within 10 s (PGSTAT_IDLE_INTERVAL)
const IDLE_MS = 10_000;
const WARM_UP = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

interface TableCounters {
  ins: number;
  upd: number;
  hot: number;
  del: number;
  bytes: number;
}

interface Snapshot {
  at: number;
  lsn: string;
  walBytes: number;
  walRecords: number;
  walFpi: number;
  xacts: number;
  statements: number;
  tables: Map<string, TableCounters>;
  byStatement: Map<string, { query: string; calls: number }>;
}

// The bench's own queries read pg_stat_* and pg_current_wal_lsn: left out of the statements counted.
const NOT_OURS = `query NOT ILIKE '%pg\\_stat%' AND query NOT ILIKE '%pg_current_wal%' AND query NOT ILIKE '%pg_wal_lsn%'`;

async function snapshot(p: PostlineProcess): Promise<Snapshot> {
  const [wal] = await p.sql(`SELECT pg_current_wal_lsn()::text AS lsn, wal_bytes::bigint AS bytes, wal_records, wal_fpi FROM pg_stat_wal`);
  const [db] = await p.sql(`SELECT xact_commit + xact_rollback AS xacts FROM pg_stat_database WHERE datname = current_database()`);
  const tables = await p.sql(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del, pg_total_relation_size(relid) AS bytes FROM pg_stat_user_tables`);
  const statements = await p.sql(`SELECT queryid::text AS id, query, calls FROM pg_stat_statements WHERE ${NOT_OURS}`);
  return {
    at: performance.now(),
    lsn: wal.lsn,
    walBytes: Number(wal.bytes),
    walRecords: Number(wal.wal_records),
    walFpi: Number(wal.wal_fpi),
    xacts: Number(db.xacts),
    statements: statements.reduce((sum, s) => sum + Number(s.calls), 0),
    tables: new Map(
      tables.map((t) => [
        t.relname,
        { ins: Number(t.n_tup_ins), upd: Number(t.n_tup_upd), hot: Number(t.n_tup_hot_upd), del: Number(t.n_tup_del), bytes: Number(t.bytes) },
      ]),
    ),
    byStatement: new Map(statements.map((s) => [s.id, { query: s.query, calls: Number(s.calls) }])),
  };
}

async function oneRun(workerCount: number, n: number, run: number) {
  const loadBefore = load();
  const dns = await startBenchDns();
  const sink = await new CountingSink().start();
  const env = { POSTLINE_DNS_SERVERS: dns.address, POSTLINE_OUTBOUND_PORT: String(sink.port) };
  let api = await startPostlineProcess({ db: 'embedded', roles: ['api'], env, label: 'db-cost' });
  const workers: PostlineProcess[] = [];
  try {
    await api.sql(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`);
    api = await api.restart(['api']); // the last process to stop stops the server: it starts again with the library
    await api.sql('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await verifiedSendingDomain(api, dns);
    for (let i = 0; i < workerCount; i++) workers.push(await api.sibling(['worker']));

    const single = args.batch === '1';
    const send = async (first: number, count: number) => {
      const bodies = single
        ? Array.from({ length: count }, (_, i) => singleBody(first + i))
        : Array.from({ length: Math.ceil(count / 100) }, (_, i) => batchBody(first + i * 100, Math.min(100, count - i * 100)));
      const result = await closedLoop({
        api,
        path: single ? '/emails' : '/emails/batch',
        concurrency: single ? 16 : 4,
        maxRequests: bodies.length,
        next: (i) => bodies[i]!,
        units: (reply) => (single ? 1 : (reply.body?.data?.length ?? 0)),
      });
      if (result.errors || result.units !== count) throw new Error(`accepted ${result.units} of ${count}: ${result.firstError}`);
    };
    const delivered = async (count: number) => {
      const deadline = performance.now() + 600_000;
      while (sink.messages < count) {
        if (performance.now() > deadline) throw new Error(`the sink got ${sink.messages} of ${count}`);
        await sleep(20);
      }
      return performance.now();
    };

    await send(0, WARM_UP);
    await delivered(WARM_UP);
    await api.sql('CHECKPOINT');
    await sleep(STATS_SETTLE_MS);
    const a = await snapshot(api);
    await sleep(IDLE_MS);
    const b = await snapshot(api);
    const pgPids = await api.postgresPids();
    const cpu = new CpuMeter(api.pid, pgPids, workers[0]?.pid);
    const loadAtRun = load();
    const t0 = performance.now();
    await send(WARM_UP, n);
    const tAccepted = performance.now();
    const tDelivered = await delivered(WARM_UP + n);
    const c1 = await snapshot(api); // statements and the WAL position are counted at once
    const shares = cpu.stop(await api.postgresPids());
    const cpuSeconds = (performance.now() - t0) / 1000;
    await sleep(STATS_SETTLE_MS);
    const c2 = await snapshot(api); // rows, transactions and pg_stat_wal are reported by the backends within 10 s
    const [wal] = await api.sql(`SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::bigint AS bytes`, [c1.lsn, b.lsn]);
    // The live rows alone (what the tables hold after vacuum has reclaimed the versions updates left behind).
    const [live] = await api.sql(
      `SELECT (SELECT avg(pg_column_size(e.*)) FROM emails e) AS email, (SELECT avg(pg_column_size(d.*)) FROM deliveries d) AS delivery, (SELECT avg(pg_column_size(v.*)) FROM events v) AS event`,
    );

    const per = (x: number) => x / n;
    const idleSeconds = (b.at - a.at) / 1000;
    /** c2 − b, less what the idle nodes did while the counters settled (c1 → c2). */
    const settled = (pick: (s: Snapshot) => number) => pick(c2) - pick(b) - ((pick(b) - pick(a)) / idleSeconds) * ((c2.at - c1.at) / 1000);
    const tables = [...c2.tables]
      .map(([name, tc]) => {
        const tb = b.tables.get(name) ?? tc;
        const field = (k: keyof TableCounters) => per(tc[k] - tb[k]);
        return { table: name, ins: field('ins'), upd: field('upd'), hot: field('hot'), del: field('del'), bytes: field('bytes') };
      })
      .filter((t) => t.ins + t.upd + t.del >= 0.005 || Math.abs(t.bytes) >= 1)
      .sort((x, y) => y.bytes - x.bytes);
    const callsBetween = (from: Snapshot, to: Snapshot) =>
      [...to.byStatement]
        .map(([id, st]) => ({ query: st.query.replace(/\s+/g, ' ').slice(0, 90), calls: st.calls - (from.byStatement.get(id)?.calls ?? 0) }))
        .filter((st) => st.calls > 0)
        .sort((x, y) => y.calls - x.calls);
    const runStatements = callsBetween(b, c1).map((st) => ({ query: st.query, perEmail: per(st.calls) }));
    const idleStatements = callsBetween(a, b).map((st) => ({ query: st.query, perSecond: st.calls / idleSeconds }));
    return {
      run,
      workers: workerCount,
      perRequest: single ? 1 : 100,
      n,
      loadBefore,
      loadAtRun,
      loadAfter: load(),
      acceptPerS: n / ((tAccepted - t0) / 1000),
      e2ePerS: n / ((tDelivered - t0) / 1000),
      runSeconds: (tDelivered - t0) / 1000,
      statements: per(c1.statements - b.statements),
      walBytes: per(Number(wal.bytes)),
      walRecords: per(settled((x) => x.walRecords)),
      walFpi: per(settled((x) => x.walFpi)),
      xacts: per(settled((x) => x.xacts)),
      liveRowBytes: { email: Number(live.email), delivery: Number(live.delivery), event: Number(live.event) },
      bytes: per([...c2.tables.values()].reduce((sum, t) => sum + t.bytes, 0) - [...b.tables.values()].reduce((sum, t) => sum + t.bytes, 0)),
      postgresCpuUsPerEmail: ((shares.postgres / 100) * cpuSeconds * 1e6) / n,
      postgresCpuPct: shares.postgres,
      machineCpuPct: shares.machine,
      idle: {
        statementsPerS: (b.statements - a.statements) / idleSeconds,
        xactsPerS: (b.xacts - a.xacts) / idleSeconds,
        walBytesPerS: (b.walBytes - a.walBytes) / idleSeconds,
        statements: idleStatements.filter((st) => st.perSecond >= 0.1),
      },
      tables,
      statementsByText: runStatements.filter((st) => st.perEmail >= 0.001).slice(0, 20),
    };
  } finally {
    closeAgents();
    for (const w of workers) await w.stop({ keepDatabase: true });
    await api.stop();
    await sink.stop();
    await dns.stop();
  }
}

async function main(): Promise<void> {
  const run = machine();
  printMachine(run);
  const n = Number(args.n);
  const layouts = args.workers!.split(',').map(Number);
  const results = [];
  for (const [i, workers] of layouts.entries()) {
    const r = await oneRun(workers, n, i + 1);
    results.push(r);
    console.log(
      `\n## run ${r.run}: 1 api + ${r.workers} worker process(es), ${n} emails, ${r.perRequest} per request; load average ${r.loadBefore} (before), ${r.loadAtRun} (at start), ${r.loadAfter} (after)`,
    );
    console.log(
      table(
        ['per email', 'value'],
        [
          ['accepted/s (API), delivered/s (end to end)', `${r.acceptPerS.toFixed(0)}, ${r.e2ePerS.toFixed(0)}`],
          ['statements ≈ round trips (the polling loops’ during the run included)', r.statements.toFixed(3)],
          ['transactions', r.xacts.toFixed(3)],
          ['WAL bytes (LSN difference)', r.walBytes.toFixed(0)],
          ['WAL records, full-page images', `${r.walRecords.toFixed(1)}, ${r.walFpi.toFixed(2)}`],
          ['bytes kept (all tables, indexes, TOAST; dead row versions until vacuum included)', r.bytes.toFixed(0)],
          [
            'live row: email, delivery, event (bytes, without indexes)',
            `${r.liveRowBytes.email.toFixed(0)}, ${r.liveRowBytes.delivery.toFixed(0)}, ${r.liveRowBytes.event.toFixed(0)}`,
          ],
          ['PostgreSQL CPU (µs); % of a core during the run', `${r.postgresCpuUsPerEmail.toFixed(0)}; ${r.postgresCpuPct}`],
        ],
      ),
    );
    console.log(
      table(
        ['table', 'inserted', 'updated (HOT)', 'deleted', 'bytes kept'],
        r.tables.map((t) => [t.table, t.ins.toFixed(2), `${t.upd.toFixed(2)} (${t.hot.toFixed(2)})`, t.del.toFixed(2), t.bytes.toFixed(0)]),
      ),
    );
    console.log(
      table(
        ['statement during the run', 'per email'],
        r.statementsByText.map((st) => [st.query, st.perEmail.toFixed(3)]),
      ),
    );
    console.log(
      `idle nodes, per second: ${r.idle.statementsPerS.toFixed(1)} statements, ${r.idle.xactsPerS.toFixed(1)} transactions, ${r.idle.walBytesPerS.toFixed(0)} WAL bytes`,
    );
    console.log(
      table(
        ['idle statement', 'per second'],
        r.idle.statements.map((st) => [st.query, st.perSecond.toFixed(1)]),
      ),
    );
  }
  appendResults(
    'db-cost-per-email',
    run,
    results.map(({ statementsByText, ...r }) => ({ scenario: `api+${r.workers}worker, ${r.perRequest} per request`, ...r, statementsByText })),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
