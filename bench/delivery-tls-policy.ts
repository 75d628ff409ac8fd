// What transport security (issue 33, src/tls-policy/) costs end to end: this tree against a
// checkout of the commit before it, alternating in one run (issue 33's speed requirements):
//   (a) end-to-end delivery with policy lookups cached stays within 5 % of the commit before;
//   (b) policy lookups never run per message: at most one `_mta-sts` TXT lookup per domain per
//       check interval (POSTLINE_MTA_STS_CHECK_INTERVAL, 1 h) across the cluster.
// Each run is bench/delivery-run.ts's: a fresh Postline with all roles on a fresh embedded
// PostgreSQL (started untimed), the sending domain verified, then N emails in POST /emails/batch
// (100 each, --clients concurrent requests); the rate is N / (first submission → the sink
// counted N). The MX of the recipient domain resolves (loopback DNS server) to a sink that
// offers STARTTLS with a certificate for the MX name issued by the test CA
// (test/fixtures/test-ca), in a process of its own (support/tls-sink.ts); Postline trusts that
// CA through NODE_EXTRA_CA_CERTS, as an operator's Postline trusts a public one. Three variants,
// the same sink, so every side upgrades every session with STARTTLS:
//   before     --before's checkout (no transport policy: opportunistic TLS, nothing checked);
//   no-policy  this tree; the recipient domain publishes no `_mta-sts` record (NXDOMAIN): one
//              TXT lookup finds nothing, kept in mta_sts_policies and in each node's memo;
//   enforce    this tree; `_mta-sts` announces a policy that mta-sts.<domain>:443 serves (a real
//              HTTPS server, test/support/policy-host.ts) in enforce mode listing the MX host,
//              so every session must present a certificate valid for it (checked, not assumed:
//              the attempts' tls_requirement is counted).
// Rounds run the variants in turn, in reverse order every other round (before, no-policy,
// enforce; then enforce, no-policy, before), and each ratio compares runs of one round. The DNS
// server counts the `_mta-sts` TXT queries and the policy host its fetches per run.
//
//   git worktree add --detach /tmp/postline-before f334524   (node_modules there: npm ci, or a symlink when the lockfile is the same)
//   npx tsx bench/delivery-tls-policy.ts --before /tmp/postline-before --rounds 5 --n 10000
// --after DIR runs the new code from another checkout instead of this tree (a worktree at a fixed
// commit, when others edit this tree during the run); --variants picks among the three;
// --cpu-prof DIR writes a V8 profile of each run's Postline.
// Rows: bench/results/delivery-tls-policy.jsonl.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { PolicyHost } from '../test/support/policy-host.js';
import { TEST_CA_CERT, issueCertificate } from '../test/support/test-ca.js';
import { batchBody } from './support/emails.js';
import { closeAgents, closedLoop } from './support/http-load.js';
import { ROOT, startPostlineProcess, type DbMode } from './support/postline-process.js';
import { CpuMeter, type CpuShares } from './support/proc-cpu.js';
import { waitForQuiet } from './support/quiet.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';
import { RECIPIENT_DOMAIN, startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';
import { startTlsSink } from './support/tls-sink.js';

const { values: args } = parseArgs({
  options: {
    before: { type: 'string' },
    // The new code: this tree by default; a checkout of a fixed commit when others edit this one meanwhile.
    after: { type: 'string' },
    rounds: { type: 'string', default: '5' },
    n: { type: 'string', default: '10000' },
    clients: { type: 'string', default: '4' },
    db: { type: 'string', default: 'embedded' },
    variants: { type: 'string', default: 'before,no-policy,enforce' },
    timeout: { type: 'string', default: '600' },
    'cpu-prof': { type: 'string' },
  },
});

type Variant = 'before' | 'no-policy' | 'enforce';
const MX_HOST = `mx.${RECIPIENT_DOMAIN}`;
const POLICY_ID = '20261128bench';

interface RunResult {
  variant: Variant;
  round: number;
  commit: string;
  n: number;
  submitS: number;
  e2eS: number;
  e2ePerS: number;
  sinkGot: number;
  status: string;
  /** Machine busy % of one core in the 3 s before the clock started (waitForQuiet), and the load average then. */
  busyAtStart: number;
  loadavgAtStart: number;
  cpu?: CpuShares;
  cpuPerEmailUs?: { postline: number; postgres: number };
  /** The sink process's sessions, and its CPU (% of one core over the measurement; part of CpuMeter's "other"). */
  sink?: { connections: number; tlsSessions: number; plainMessages: number; cpu: number };
  /** DNS queries for `_mta-sts.<recipient domain>` TXT and `mta-sts.<recipient domain>` A, and HTTPS fetches of its policy, during the run. */
  txtLookups: number;
  policyHostLookups: number;
  policyFetches: number;
  queueState: Record<string, number>;
  /** This tree only: the attempts by the TLS requirement they met and the session's protocol. */
  attemptsTls?: Record<string, number>;
  /** This tree only: the mta_sts_policies row at the end, and that table's scans (each a memo miss: one INSERT … ON CONFLICT, one SELECT). */
  stsRow?: Record<string, unknown>;
  stsTableStats?: Record<string, number>;
}

/** The checkout's commit, marked when its src/ has changes not committed (as report.ts's machine() marks this tree's). */
function commitOf(dir: string): string {
  try {
    const commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', dir, 'status', '--porcelain', 'src'], { encoding: 'utf8' }).trim();
    return dirty ? `${commit}+uncommitted-src` : commit;
  } catch {
    return 'unknown';
  }
}

/** A checkout of Postline that can run: its sources and its node_modules. */
function checkout(option: string, dir: string): string {
  if (!fs.existsSync(path.join(dir, 'src/main.ts'))) throw new Error(`--${option}: ${dir} is not a checkout of Postline (git worktree add …)`);
  if (!fs.existsSync(path.join(dir, 'node_modules')))
    throw new Error(`--${option}: ${dir} has no node_modules (npm ci there, or a symlink when the lockfile is the same)`);
  return dir;
}

/** CPU seconds (user + system) of a process so far, from /proc. */
function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Stops the run in progress (its Postline, embedded PostgreSQL and sink) when the bench is interrupted. */
let stopCurrent: (() => Promise<void>) | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`# ${signal}: stopping the run in progress`);
    void (stopCurrent?.() ?? Promise.resolve()).finally(() => process.exit(130));
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function measure(
  variant: Variant,
  round: number,
  setup: { beforeDir: string; afterDir: string; mx: { key: string; cert: string }; policyHost: PolicyHost },
): Promise<RunResult> {
  const n = Number(args.n);
  const label = `${variant}-${round}`;
  const before = variant === 'before';
  const dns = await startBenchDns();
  if (variant === 'enforce') {
    dns.set(`_mta-sts.${RECIPIENT_DOMAIN}`, { TXT: [`v=STSv1; id=${POLICY_ID}`] });
    dns.set(`mta-sts.${RECIPIENT_DOMAIN}`, { A: [setup.policyHost.address] });
  }
  const fetchesBefore = setup.policyHost.fetches.get(RECIPIENT_DOMAIN) ?? 0;
  const sink = await startTlsSink(setup.mx);
  const postline = await startPostlineProcess({
    db: args.db as DbMode,
    roles: ['api', 'smtp', 'worker'],
    root: before ? setup.beforeDir : setup.afterDir,
    env: { POSTLINE_DNS_SERVERS: dns.address, POSTLINE_OUTBOUND_PORT: String(sink.port), NODE_EXTRA_CA_CERTS: TEST_CA_CERT },
    externalUrl: process.env.EXTERNAL_DATABASE_URL,
    cpuProfDir: args['cpu-prof'] ? path.join(args['cpu-prof'], label) : undefined,
    label: `tls-policy-${variant}`,
  });
  stopCurrent = async () => {
    await postline.stop();
    await sink.stop();
  };
  const result: RunResult = {
    variant,
    round,
    commit: commitOf(before ? setup.beforeDir : setup.afterDir),
    n,
    submitS: 0,
    e2eS: 0,
    e2ePerS: 0,
    sinkGot: 0,
    status: 'ok',
    busyAtStart: 0,
    loadavgAtStart: 0,
    txtLookups: 0,
    policyHostLookups: 0,
    policyFetches: 0,
    queueState: {},
  };
  try {
    await verifiedSendingDomain(postline, dns);
    const bodies = Array.from({ length: Math.ceil(n / 100) }, (_, i) => batchBody(i * 100, Math.min(100, n - i * 100)));
    result.busyAtStart = await waitForQuiet(label, machine().nproc);
    result.loadavgAtStart = machine().loadavg[0]!;
    const meter = new CpuMeter(postline.pid, await postline.postgresPids());
    const sinkCpu0 = cpuSeconds(sink.pid);
    const t0 = performance.now();
    let t2: number | undefined;
    const delivered = sink.reached(n, Number(args.timeout) * 1000).then(() => (t2 = performance.now()));
    delivered.catch(() => {});
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
      result.status = `submit_errors=${load.errors}`;
      console.error(`${label}: ${load.units} of ${n} accepted; first error: ${load.firstError}`);
    }
    await delivered.catch((err) => {
      result.status = result.status === 'ok' ? 'e2e_timeout' : `${result.status},e2e_timeout`;
      console.error(`${label}: ${err.message}`);
    });
    result.cpu = meter.stop(await postline.postgresPids());
    const sinkCpu = cpuSeconds(sink.pid) - sinkCpu0;
    const stats = await sink.stats();
    result.submitS = (t1 - t0) / 1000;
    result.e2eS = ((t2 ?? performance.now()) - t0) / 1000;
    result.sinkGot = stats.messages;
    result.e2ePerS = stats.messages / result.e2eS;
    result.sink = {
      connections: stats.connections,
      tlsSessions: stats.tlsSessions,
      plainMessages: stats.plainMessages,
      cpu: Math.round((sinkCpu / result.e2eS) * 100),
    };
    const us = (pct: number) => Math.round(((pct / 100) * result.e2eS * 1e6) / Math.max(1, stats.messages));
    result.cpuPerEmailUs = { postline: us(result.cpu.postline), postgres: us(result.cpu.postgres) };
    // The sink counts a message before Postline has written its outcome: the last outcomes land within a moment.
    for (const until = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 200))) {
      const states = await postline.sql(`SELECT status, count(*) AS n FROM deliveries GROUP BY status`);
      result.queueState = Object.fromEntries(states.map((r) => [r.status, Number(r.n)]));
      if ((result.queueState.delivered ?? 0) >= n || Date.now() > until) break;
    }
    if (!before) {
      const attempts = await postline.sql(
        `SELECT coalesce(tls_requirement, '-') || ' / ' || coalesce(tls_protocol, 'plain') AS k, count(*) AS n FROM delivery_attempts GROUP BY 1`,
      );
      result.attemptsTls = Object.fromEntries(attempts.map((r) => [r.k, Number(r.n)]));
      const [row] = await postline.sql(`SELECT domain, policy_id, mode, mx, checked_at, check_after, last_error FROM mta_sts_policies WHERE domain = $1`, [
        RECIPIENT_DOMAIN,
      ]);
      result.stsRow = row;
      // The statistics collector flushes a backend's counts within a second of its transaction.
      await new Promise((r) => setTimeout(r, 1500));
      const [scans] = await postline.sql(
        `SELECT seq_scan, idx_scan, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'mta_sts_policies'`,
      );
      result.stsTableStats = scans && Object.fromEntries(Object.entries(scans).map(([k, v]) => [k, Number(v)]));
    }
  } finally {
    stopCurrent = undefined;
    closeAgents();
    await postline.stop();
    await sink.stop();
    await dns.stop();
  }
  const name = RECIPIENT_DOMAIN.toLowerCase();
  result.txtLookups = dns.queries.filter((q) => q.type === 'TXT' && q.name.toLowerCase() === `_mta-sts.${name}`).length;
  result.policyHostLookups = dns.queries.filter((q) => q.name.toLowerCase() === `mta-sts.${name}`).length;
  result.policyFetches = (setup.policyHost.fetches.get(RECIPIENT_DOMAIN) ?? 0) - fetchesBefore;
  const cpu = result.cpu;
  console.log(
    `${label} (${result.commit}): ${fixed(result.e2ePerS)}/s end to end (${result.sinkGot} in ${fixed(result.e2eS, 2)} s, submitted in ${fixed(result.submitS, 2)} s), ` +
      `${result.status}; busy before ${result.busyAtStart}%, load ${result.loadavgAtStart}; ` +
      (cpu
        ? `CPU % postline ${cpu.postline} (main ${cpu.postlineMain}), postgres ${cpu.postgres}, generator ${cpu.generator}, other ${cpu.other} (${cpu.otherTop}); ` +
          `per email postline ${result.cpuPerEmailUs!.postline} µs, postgres ${result.cpuPerEmailUs!.postgres} µs; `
        : '') +
      `sink ${result.sink?.connections} connections, ${result.sink?.tlsSessions} STARTTLS, ${result.sink?.plainMessages} plain, CPU ${result.sink?.cpu}%; ` +
      `_mta-sts TXT ${result.txtLookups}, mta-sts A/AAAA ${result.policyHostLookups}, policy fetches ${result.policyFetches}` +
      (result.attemptsTls ? `; attempts ${JSON.stringify(result.attemptsTls)}; mta_sts_policies scans ${JSON.stringify(result.stsTableStats)}` : ''),
  );
  appendResults('delivery-tls-policy', machine(), [{ scenario: variant, ...result, clients: Number(args.clients), db: args.db }]);
  return result;
}

async function main(): Promise<void> {
  if (!args.before) throw new Error('--before: a checkout of the commit to compare with (git worktree add …)');
  const beforeDir = checkout('before', path.resolve(args.before));
  const afterDir = args.after ? checkout('after', path.resolve(args.after)) : ROOT;
  const variants = args.variants!.split(',') as Variant[];
  const run = machine();
  printMachine(run);
  console.log(
    `# ${commitOf(afterDir)} (${afterDir}) against ${commitOf(beforeDir)} (${beforeDir}); variants ${variants.join(', ')}; ${args.rounds} rounds of N=${args.n}, ${args.clients} clients, ${args.db}`,
  );

  const mx = issueCertificate([MX_HOST]);
  const policyHost = await new PolicyHost([RECIPIENT_DOMAIN]).start();
  policyHost.policy(RECIPIENT_DOMAIN, { mode: 'enforce', mx: [MX_HOST], maxAge: 604800 });
  const results: RunResult[] = [];
  try {
    for (let round = 1; round <= Number(args.rounds); round++) {
      const order = round % 2 ? variants : [...variants].reverse();
      console.log(`# round ${round}: ${order.join(', ')}`);
      for (const variant of order) results.push(await measure(variant, round, { beforeDir, afterDir, mx: { key: mx.key, cert: mx.chain }, policyHost }));
    }
  } finally {
    await policyHost.stop();
  }

  const rounds = [...new Set(results.map((r) => r.round))];
  const of = (variant: Variant, round: number) => results.find((r) => r.variant === variant && r.round === round && r.status === 'ok');
  const others = variants.filter((v) => v !== 'before');
  const rows = rounds.map((round) => {
    const base = of('before', round);
    return [
      round,
      ...variants.map((v) => {
        const r = of(v, round);
        return r ? `${fixed(r.e2ePerS)}/s (${r.cpuPerEmailUs?.postline}+${r.cpuPerEmailUs?.postgres} µs, busy ${r.busyAtStart}%)` : 'failed';
      }),
      ...others.map((v) => {
        const r = of(v, round);
        return r && base ? `${fixed(r.e2ePerS / base.e2ePerS, 3)}×` : 'n/a';
      }),
    ];
  });
  console.log(
    `\n${table(
      ['round', ...variants.map((v) => `${v} e2e (CPU/email Postline+PG)`), ...others.map((v) => `${v} ÷ before`)],
      rows.map((r) => r.map(String)),
    )}`,
  );
  for (const v of others) {
    const ratios = rounds.flatMap((round) => {
      const r = of(v, round);
      const base = of('before', round);
      return r && base ? [r.e2ePerS / base.e2ePerS] : [];
    });
    const cpuRatios = rounds.flatMap((round) => {
      const r = of(v, round);
      const base = of('before', round);
      return r?.cpuPerEmailUs && base?.cpuPerEmailUs ? [r.cpuPerEmailUs.postline / base.cpuPerEmailUs.postline] : [];
    });
    if (ratios.length)
      console.log(
        `${v} ÷ before, end to end: median ${fixed(median(ratios), 3)}× (${ratios.map((x) => fixed(x, 3)).join(', ')}); ` +
          `Postline CPU per email ${fixed(median(cpuRatios), 3)}× (target: rate within 5 %, ≥ 0.95×)`,
      );
  }
  for (const r of results.filter((x) => x.variant === 'enforce')) {
    console.log(
      `enforce round ${r.round}: ${r.txtLookups} _mta-sts TXT lookup(s), ${r.policyHostLookups} mta-sts host lookup(s), ${r.policyFetches} policy fetch(es) for ${r.sinkGot} messages`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
