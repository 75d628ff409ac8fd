// One measured end-to-end run of Postline for bench/delivery-vs-peers.sh: the counterpart of the
// peers' `measure_run`. The script starts smtp-sink (127.0.0.1:$SINK_PORT) before calling this
// and stops it after. Here: start Postline with all roles on a fresh data directory (untimed,
// like Postfix's restart), create and verify the sending domain, then
//   t0  first POST /emails/batch (N emails, 100 per request, --clients concurrent requests)
//   t1  the last batch answered 200  → submit rate = N / (t1 - t0)
//   t2  smtp-sink's counter shows N  → end-to-end rate = N / (t2 - t0)
// The recipient domain's MX resolves (loopback DNS server) to 127.0.0.1 and
// POSTLINE_OUTBOUND_PORT is the sink's port, so Postline delivers over SMTP exactly as to a
// real MX host. Prints one row in the peers' results.tsv format and appends it to --results.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { batchBody } from './support/emails.js';
import { closeAgents, closedLoop } from './support/http-load.js';
import { CpuMeter, type CpuShares } from './support/proc-cpu.js';
import { waitForQuiet } from './support/quiet.js';
import { startPostlineProcess, type DbMode } from './support/postline-process.js';
import { appendResults, machine } from './support/report.js';
import { startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';

const { values: args } = parseArgs({
  options: {
    label: { type: 'string', default: 'D-postline' },
    run: { type: 'string', default: '1' },
    n: { type: 'string', default: process.env.N ?? '20000' },
    clients: { type: 'string', default: '4' },
    db: { type: 'string', default: 'embedded' },
    // single: one process with all roles (the default `postline start`); split: one process with
    // --roles api,smtp and a second with --roles worker on the same database (two nodes' layout).
    topology: { type: 'string', default: 'single' },
    'sink-port': { type: 'string', default: process.env.SINK_PORT ?? '2526' },
    'sink-out': { type: 'string' },
    results: { type: 'string' },
    'cpu-results': { type: 'string' },
    timeout: { type: 'string', default: process.env.E2E_TIMEOUT ?? '600' },
    'cpu-prof': { type: 'string' },
  },
});

/** smtp-sink -c writes "sess=.. quit=.. mesg=N" counters separated by CR; the last one counts. */
function sinkCount(file: string): number {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(200, size));
    fs.readSync(fd, buf, 0, buf.length, size - buf.length);
    const matches = [...buf.toString('latin1').matchAll(/mesg=(\d+)/g)];
    return matches.length ? Number(matches.at(-1)![1]) : 0;
  } finally {
    fs.closeSync(fd);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const run = machine();
  const n = Number(args.n);
  const sinkOut = args['sink-out'];
  if (!sinkOut) throw new Error('--sink-out (the smtp-sink -c output file) is required');
  const dns = await startBenchDns();
  const split = args.topology === 'split';
  const postline = await startPostlineProcess({
    db: args.db as DbMode,
    roles: split ? ['api', 'smtp'] : ['api', 'smtp', 'worker'],
    env: { POSTLINE_DNS_SERVERS: dns.address, POSTLINE_OUTBOUND_PORT: args['sink-port']! },
    externalUrl: process.env.EXTERNAL_DATABASE_URL,
    cpuProfDir: args['cpu-prof'],
    label: 'delivery',
  });
  const worker = split ? await postline.sibling(['worker']) : undefined;
  let status = 'ok';
  let got = 0;
  let submitS = 0;
  let e2eS = 0;
  let queueState: Record<string, number> = {};
  let cpu: CpuShares | undefined;
  try {
    await verifiedSendingDomain(postline, dns);
    const bodies = Array.from({ length: Math.ceil(n / 100) }, (_, i) => batchBody(i * 100, Math.min(100, n - i * 100)));
    const already = sinkCount(sinkOut);
    if (already) throw new Error(`the sink already counted ${already} messages`);

    await waitForQuiet(args.label!, run.nproc);
    const meter = new CpuMeter(postline.pid, await postline.postgresPids(), worker?.pid);
    const t0 = performance.now();
    let t2: number | undefined;
    // Watch the sink while submitting: with all roles, delivery starts before the last batch is in.
    const watcher = (async () => {
      const deadline = t0 + Number(args.timeout) * 1000;
      while (performance.now() < deadline) {
        got = sinkCount(sinkOut);
        if (got >= n) return (t2 = performance.now());
        await sleep(50);
      }
    })();
    const load = await closedLoop({
      api: postline,
      path: '/emails/batch',
      concurrency: Number(args.clients),
      maxRequests: bodies.length,
      next: (i) => bodies[i]!,
      units: (reply) => reply.body?.data?.length ?? 0,
    });
    const t1 = performance.now();
    if (load.errors || load.units !== n) {
      status = `submit_errors=${load.errors}`;
      console.error(`submit: ${load.units} of ${n} accepted; first error: ${load.firstError}`);
    }
    await watcher;
    cpu = meter.stop(await postline.postgresPids());
    submitS = (t1 - t0) / 1000;
    e2eS = ((t2 ?? performance.now()) - t0) / 1000;
    if (t2 === undefined) status = status === 'ok' ? 'e2e_timeout' : `${status},e2e_timeout`;
    const rows = await postline.sql(`SELECT status, count(*) AS n FROM deliveries GROUP BY status`);
    queueState = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  } finally {
    closeAgents();
    await worker?.stop({ keepDatabase: true });
    await postline.stop();
    await dns.stop();
  }
  const fmt = (v: number) => v.toFixed(3);
  const rate = (count: number, s: number) => (s > 0 ? (count / s).toFixed(1) : 'nan');
  const row = [args.label, args.run, n, fmt(submitS), rate(n, submitS), fmt(e2eS), rate(got, e2eS), got, status].join('\t');
  console.log(row);
  if (cpu) {
    const us = (pct: number) => Math.round(((pct / 100) * e2eS * 1e6) / Math.max(1, got));
    console.error(
      `cpu % of one core, t0..t2: postline ${cpu.postline} (main thread ${cpu.postlineMain}), postgres ${cpu.postgres}, ` +
        `generator ${cpu.generator}, other ${cpu.other} (${cpu.otherTop}); ` +
        `CPU per email: postline ${us(cpu.postline)} µs, postgres ${us(cpu.postgres)} µs`,
    );
    if (args['cpu-results'] && got >= n) fs.appendFileSync(args['cpu-results'], `${args.label}\t${args.run}\t${us(cpu.postline)}\n`);
  }
  if (args.results) fs.appendFileSync(args.results, `${row}\n`);
  appendResults('delivery', run, [
    {
      scenario: args.label,
      run: Number(args.run),
      n,
      clients: Number(args.clients),
      db: args.db,
      submitS,
      e2eS,
      sinkGot: got,
      status,
      queueState,
      cpu,
      topology: args.topology,
    },
  ]);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
