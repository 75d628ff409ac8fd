// What metrics cost (issue 15, "Speed": accept and end-to-end throughput with metrics on within
// 3 % of off), A/B in one run: each round starts Postline once with POSTLINE_METRICS=true and
// once with false, in alternating order (off first in odd rounds), and measures on each
//   accept   --roles api: POST /emails/batch ×100 with 4 clients, then POST /emails with 50
//            clients, for a fixed time each (as bench/accept.ts);
//   e2e      every role: N emails through /emails/batch until a counting MX sink has them all
//            (as bench/delivery-run.ts, with the sink in this process).
// With metrics on, a scraper reads /metrics every --scrape-every seconds throughout, as
// Prometheus would (its default is 15 s or 1 min: 5 s is the dearer case). Prints each run,
// the medians per figure and the ratio on ÷ off.
//
// On a shared 2-core machine the rates of one run move by more than the 3 % asked, so the bench
// also prices what metrics add: nanoseconds per recording call (in this process, which does
// nothing else then) and the CPU of one /metrics answer (on the e2e node once it is idle, its
// PostgreSQL's included), set against the CPU per email of the runs with metrics off.
//
//   npx tsx bench/metrics-cost.ts                       # 3 rounds, ~10 minutes on a quiet machine
//   npx tsx bench/metrics-cost.ts --rounds 5 --n 20000 --accept-seconds 10
import { parseArgs } from 'node:util';
import { batchBody, singleBody } from './support/emails.js';
import { closeAgents, closedLoop, request } from './support/http-load.js';
import { CountingSink } from './support/counting-sink.js';
import { CpuMeter } from './support/proc-cpu.js';
import { startPostlineProcess, type DbMode, type PostlineProcess } from './support/postline-process.js';
import { waitForQuiet } from './support/quiet.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';
import { deliveryOutcome, emailsAcceptedBy, recordMetrics, smtpReplied } from '../src/metrics/record.js';
import { startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    db: { type: 'string', default: 'embedded' },
    'accept-seconds': { type: 'string', default: '8' },
    'warmup-seconds': { type: 'string', default: '3' },
    n: { type: 'string', default: '10000' },
    'scrape-every': { type: 'string', default: '5' },
  },
});

type Mode = 'on' | 'off';
type Figure = 'batch emails/s' | 'single req/s' | 'e2e emails/s';
const FIGURES: Figure[] = ['batch emails/s', 'single req/s', 'e2e emails/s'];

interface Run {
  round: number;
  mode: Mode;
  figure: Figure;
  rate: number;
  /** Postline's CPU per email (µs): moves less with other load on the machine than the rate. */
  postlineCpuUs: number;
  scrapes: number;
  /** e2e with metrics on: CPU of one /metrics answer, Postline's and its PostgreSQL's (ms), on the idle node after the run. */
  scrapeCpuMs?: number;
}

const db = args.db as DbMode;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads /metrics every --scrape-every seconds until stopped; counts the 200s. */
function scraper(postline: PostlineProcess, mode: Mode): { stop(): Promise<number> } {
  if (mode === 'off') return { stop: async () => 0 };
  let running = true;
  let scrapes = 0;
  const loop = (async () => {
    while (running) {
      const reply = await request(postline, 'GET', '/metrics');
      if (reply.status !== 200) throw new Error(`/metrics → ${reply.status}`);
      scrapes++;
      for (let waited = 0; running && waited < Number(args['scrape-every']) * 1000; waited += 100) await sleep(100);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return scrapes;
    },
  };
}

/** CPU per /metrics answer: a burst of SCRAPE_BURST on the idle node (the first counts the queue; the rest find it cached). */
const SCRAPE_BURST = 50;
async function scrapeCost(postline: PostlineProcess, mode: Mode): Promise<number | undefined> {
  if (mode === 'off') return undefined;
  await sleep(5_500); // the queue count's cache runs out: the burst pays for one count, as a scrape every 5 s does
  const meter = new CpuMeter(postline.pid, await postline.postgresPids());
  const t0 = performance.now();
  for (let i = 0; i < SCRAPE_BURST; i++) await request(postline, 'GET', '/metrics');
  const seconds = (performance.now() - t0) / 1000;
  const cpu = meter.stop(await postline.postgresPids());
  return (((cpu.postline + cpu.postgres) / 100) * seconds * 1000) / SCRAPE_BURST;
}

const env = (mode: Mode, extra: Record<string, string>) => ({ POSTLINE_METRICS: String(mode === 'on'), ...extra });

async function accept(round: number, mode: Mode, dns: Awaited<ReturnType<typeof startBenchDns>>, nproc: number): Promise<Run[]> {
  const postline = await startPostlineProcess({ db, roles: ['api'], env: env(mode, { POSTLINE_DNS_SERVERS: dns.address }), label: `metrics-${mode}` });
  const runs: Run[] = [];
  try {
    await verifiedSendingDomain(postline, dns);
    const batchBodies = Array.from({ length: 32 }, (_, k) => batchBody(k * 100, 100));
    const singleBodies = Array.from({ length: 2000 }, (_, k) => singleBody(1_000_000 + k));
    const seconds = Number(args['accept-seconds']);
    const loads = {
      'batch emails/s': (ms: number) =>
        closedLoop({
          api: postline,
          path: '/emails/batch',
          concurrency: 4,
          durationMs: ms,
          next: (i) => batchBodies[i % 32]!,
          units: (r) => r.body?.data?.length ?? 0,
        }),
      'single req/s': (ms: number) =>
        closedLoop({
          api: postline,
          path: '/emails',
          concurrency: 50,
          durationMs: ms,
          next: (i) => singleBodies[i % 2000]!,
          units: (r) => (r.body?.id ? 1 : 0),
        }),
    };
    for (const figure of ['batch emails/s', 'single req/s'] as const) {
      await loads[figure](Number(args['warmup-seconds']) * 1000); // JIT, pool connections, page cache
      await waitForQuiet(`round ${round} ${mode} ${figure}`, nproc);
      const scrape = scraper(postline, mode);
      const meter = new CpuMeter(postline.pid, await postline.postgresPids());
      const result = await loads[figure](seconds * 1000);
      const cpu = meter.stop(await postline.postgresPids());
      const scrapes = await scrape.stop();
      if (result.errors) throw new Error(`${figure}: ${result.errors} errors, first: ${result.firstError}`);
      const rate = result.units / result.seconds;
      runs.push({ round, mode, figure, rate, postlineCpuUs: ((cpu.postline / 100) * 1e6) / rate, scrapes });
    }
  } finally {
    closeAgents();
    await postline.stop();
  }
  return runs;
}

async function endToEnd(round: number, mode: Mode, dns: Awaited<ReturnType<typeof startBenchDns>>, nproc: number): Promise<Run> {
  const n = Number(args.n);
  const sink = await new CountingSink().start();
  const postline = await startPostlineProcess({
    db,
    roles: ['api', 'smtp', 'worker'],
    env: env(mode, { POSTLINE_DNS_SERVERS: dns.address, POSTLINE_OUTBOUND_PORT: String(sink.port) }),
    label: `metrics-e2e-${mode}`,
  });
  try {
    await verifiedSendingDomain(postline, dns);
    const bodies = Array.from({ length: Math.ceil(n / 100) }, (_, i) => batchBody(i * 100, Math.min(100, n - i * 100)));
    await waitForQuiet(`round ${round} ${mode} e2e`, nproc);
    const scrape = scraper(postline, mode);
    const meter = new CpuMeter(postline.pid, await postline.postgresPids());
    const t0 = performance.now();
    const load = await closedLoop({
      api: postline,
      path: '/emails/batch',
      concurrency: 4,
      maxRequests: bodies.length,
      next: (i) => bodies[i]!,
      units: (r) => r.body?.data?.length ?? 0,
    });
    if (load.units !== n) throw new Error(`e2e: ${load.units} of ${n} accepted; first error: ${load.firstError}`);
    const deadline = t0 + 600_000;
    while (sink.messages < n && performance.now() < deadline) await sleep(20);
    if (sink.messages < n) throw new Error(`e2e: ${sink.messages} of ${n} delivered within 10 minutes`);
    const seconds = (sink.lastAt - t0) / 1000;
    const cpu = meter.stop(await postline.postgresPids());
    const scrapes = await scrape.stop();
    const rate = n / seconds;
    return {
      round,
      mode,
      figure: 'e2e emails/s',
      rate,
      postlineCpuUs: ((cpu.postline / 100) * 1e6) / rate,
      scrapes,
      scrapeCpuMs: await scrapeCost(postline, mode),
    };
  } finally {
    closeAgents();
    await postline.stop();
    await sink.stop();
  }
}

/** CPU nanoseconds per call of `fn`, best of 5 runs of `calls` calls. */
function nsPerCall(calls: number, fn: (i: number) => void): number {
  let best = Infinity;
  for (let run = 0; run < 5; run++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < calls; i++) fn(i);
    const used = process.cpuUsage(t0);
    best = Math.min(best, ((used.user + used.system) * 1000) / calls);
  }
  return best;
}

/** What recording costs, in this process: the part of the A/B that noise cannot hide. */
function pricing(): { label: string; ns: number }[] {
  const stop = recordMetrics();
  const acceptedAt = new Date();
  const prices = [
    { label: 'an accepted submission (emailsAcceptedBy)', ns: nsPerCall(1_000_000, () => emailsAcceptedBy('api', 100)) },
    { label: "a recipient's delivery (deliveryOutcome + histogram)", ns: nsPerCall(1_000_000, () => deliveryOutcome('delivered', 'google', acceptedAt)) },
    { label: 'an SMTP reply (smtpReplied)', ns: nsPerCall(1_000_000, () => smtpReplied(250)) },
  ];
  stop();
  return prices;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function main(): Promise<void> {
  const run = machine();
  printMachine(run);
  console.log(`# A/B: POSTLINE_METRICS=true (scraped every ${args['scrape-every']} s) vs false; ${args.rounds} rounds, alternating order; db ${db}`);
  const prices = pricing();
  const dns = await startBenchDns();
  const runs: Run[] = [];
  try {
    for (let round = 1; round <= Number(args.rounds); round++) {
      const order: Mode[] = round % 2 ? ['off', 'on'] : ['on', 'off'];
      for (const mode of order) {
        for (const r of await accept(round, mode, dns, run.nproc)) runs.push(r);
        runs.push(await endToEnd(round, mode, dns, run.nproc));
        for (const r of runs.filter((x) => x.round === round && x.mode === mode)) {
          console.log(`round ${round} metrics ${mode}: ${r.figure} ${fixed(r.rate)} (Postline CPU ${fixed(r.postlineCpuUs)} µs/email, ${r.scrapes} scrapes)`);
        }
      }
    }
  } finally {
    await dns.stop();
  }
  const summary = FIGURES.map((figure) => {
    const of = (mode: Mode, pick: (r: Run) => number) => runs.filter((r) => r.figure === figure && r.mode === mode).map(pick);
    const [on, off] = [median(of('on', (r) => r.rate)), median(of('off', (r) => r.rate))];
    const [cpuOn, cpuOff] = [median(of('on', (r) => r.postlineCpuUs)), median(of('off', (r) => r.postlineCpuUs))];
    return {
      figure,
      on: of('on', (r) => r.rate),
      off: of('off', (r) => r.rate),
      ratio: on / off,
      row: [
        figure,
        of('off', (r) => r.rate)
          .map((v) => fixed(v))
          .join(', '),
        of('on', (r) => r.rate)
          .map((v) => fixed(v))
          .join(', '),
        fixed(off),
        fixed(on),
        fixed(on / off, 3),
        `${fixed(cpuOff)} / ${fixed(cpuOn)}`,
      ],
    };
  });
  console.log(
    `\n${table(
      ['figure', 'off (each round)', 'on (each round)', 'off median', 'on median', 'on ÷ off', 'Postline CPU µs/email off / on (medians)'],
      summary.map((s) => s.row),
    )}`,
  );
  // Per email end to end: one delivery, a hundredth of a batch's accept; a scrape every --scrape-every s at the e2e rate.
  const e2eOff = runs.filter((r) => r.figure === 'e2e emails/s' && r.mode === 'off');
  const cpuPerEmailNs = median(e2eOff.map((r) => r.postlineCpuUs)) * 1000;
  const scrapeNs = median(runs.filter((r) => r.scrapeCpuMs !== undefined).map((r) => r.scrapeCpuMs!)) * 1e6;
  prices.push({ label: 'one /metrics answer, Postline + its PostgreSQL (measured on the e2e node, idle)', ns: scrapeNs });
  const perEmailNs = prices[1]!.ns + prices[0]!.ns / 100 + scrapeNs / (Number(args['scrape-every']) * median(e2eOff.map((r) => r.rate)));
  console.log(
    `\n${table(
      ['recording, in process', 'CPU per call'],
      prices.map((p) => [p.label, p.ns >= 1e6 ? `${fixed(p.ns / 1e6, 2)} ms` : `${fixed(p.ns)} ns`]),
    )}`,
  );
  console.log(
    `end to end, per email: ${fixed(perEmailNs)} ns of recording and scraping = ${fixed((perEmailNs / cpuPerEmailNs) * 100, 3)} % of Postline's ${fixed(cpuPerEmailNs / 1000)} µs of CPU per email (metrics off, median)`,
  );
  appendResults(
    'metrics-cost',
    run,
    summary.map(({ figure, on, off, ratio }) => ({ figure, db, on, off, ratio, scrapeEveryS: Number(args['scrape-every']), prices })),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
