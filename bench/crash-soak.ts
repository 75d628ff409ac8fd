// The crash soak (issue 17): Postline with every role on one data directory is killed with
// SIGKILL (its whole process tree: Postline, its worker thread and the embedded PostgreSQL's
// postmaster and backends) at random moments, again and again, while API batches (the `resend`
// SDK, with idempotency keys), SMTP submissions (nodemailer), broadcasts to a segment, contact
// imports, event-triggered automation runs and webhook deliveries are all under way; it is
// restarted on the same data each time. Mail goes out over SMTP to a loopback MX sink found
// through a loopback DNS server; webhooks go to a loopback endpoint that checks signatures.
//
// Afterwards it checks that every acknowledged email reached the sink once (a second copy is
// counted, and allowed only within the at-least-once bound: the deliveries the killed node
// held at the kill), that no idempotency key made two emails, that every broadcast made one
// email per contact, every import row one contact, every acknowledged event one run with each
// step once, every webhook message delivered; and that after the last (clean) stop nothing of
// PostgreSQL still runs and no postmaster.pid, start lock or registration is left, and the
// next start comes up. Figures: recovery per restart (to /readyz 200, to the first delivery).
//
//   npx tsx bench/crash-soak.ts [--db external] [--kills 10] [--seed S]
//   POSTLINE_ENTRY=dist … runs the compiled CLI (after `npx tsc -p .`) instead of tsx.
// Env: EXTERNAL_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), on which
// the database postline_soak is created and dropped.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { MxSink } from '../test/support/mx-sink.js';
import { freePort } from './support/postline-process.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';
import { RECIPIENT_DOMAIN, SENDING_DOMAIN, startBenchDns } from './support/sending-domain.js';
import { drained, findings, type SoakFindings } from './support/soak-checks.js';
import { SoakClients, SoakWebhookEndpoint } from './support/soak-clients.js';
import { type Leftovers, SoakNode } from './support/soak-node.js';
import { importDone, setUpAccount, startBroadcast, startImport } from './support/soak-work.js';
import { BENCH_SECRET_KEY } from './support/postline-process.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded' },
    kills: { type: 'string', default: '10' },
    seed: { type: 'string' },
    /** Seconds a node runs before it is killed: uniformly between these. */
    'min-up': { type: 'string', default: '4' },
    'max-up': { type: 'string', default: '12' },
    readers: { type: 'string', default: '2000' },
    'import-rows': { type: 'string', default: '20000' },
    'drain-timeout': { type: 'string', default: '240' },
  },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const FROM = `Soak <soak@${SENDING_DOMAIN}>`;
const SOAK_DATABASE = 'postline_soak';

/** mulberry32: the kill moments of a seed are the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function adminQuery(base: string, query: string): Promise<void> {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(query);
  } finally {
    await admin.end();
  }
}

interface Restart {
  kill: number;
  upSeconds: number;
  /** Queue rows and webhook messages the node held (claimed, not final) just before the kill. */
  deliveriesHeld: number;
  webhooksHeld: number;
  readyMs: number;
  firstDeliveryMs: number;
}

async function main(): Promise<void> {
  const run = machine();
  printMachine(run);
  const external = args.db === 'external';
  const kills = Number(args.kills);
  const seed = Number(args.seed ?? crypto.randomInt(2 ** 31));
  const rand = random(seed);
  console.log(`# crash soak: ${kills} kills, ${external ? 'external' : 'embedded'} PostgreSQL, seed ${seed}`);

  const dns = await startBenchDns();
  const sink = await new MxSink().start();
  const endpoint = await new SoakWebhookEndpoint().start();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'postline-soak-'));
  const externalBase = process.env.EXTERNAL_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  let databaseUrl: string | undefined;
  if (external) {
    await adminQuery(externalBase, `DROP DATABASE IF EXISTS ${SOAK_DATABASE} WITH (FORCE)`);
    await adminQuery(externalBase, `CREATE DATABASE ${SOAK_DATABASE}`);
    const url = new URL(externalBase);
    url.pathname = `/${SOAK_DATABASE}`;
    databaseUrl = url.toString();
  }
  const apiKey = `re_${crypto.randomBytes(4).toString('hex')}_${crypto.randomBytes(12).toString('hex')}`;
  const [apiPort, smtpPort] = [await freePort(), await freePort()];
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'DATABASE_URL' && k !== 'NODE_OPTIONS') env[k] = v;
  Object.assign(env, {
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    POSTLINE_DATA_DIR: dataDir,
    POSTLINE_BOOTSTRAP_API_KEY: apiKey,
    POSTLINE_RATE_LIMIT: '1000000000',
    POSTLINE_SMTP_PORTS: String(smtpPort),
    POSTLINE_SMTPS_PORTS: '',
    POSTLINE_SMTP_HOSTNAME: 'mta.postline-bench.test',
    POSTLINE_DNS_SERVERS: dns.address,
    POSTLINE_OUTBOUND_PORT: String(sink.port),
    POSTLINE_PUBLIC_URL: 'https://mail.postline-bench.test',
    POSTLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, POSTLINE_SECRET_KEY: BENCH_SECRET_KEY } : {}),
  });
  const api = { url: `http://127.0.0.1:${apiPort}`, apiKey };
  const node = new SoakNode(dataDir, env, api.url, external);
  const failures: string[] = [];
  let result: SoakFindings | undefined;
  const restarts: Restart[] = [];
  const leftovers: { afterStop?: Leftovers; afterNextStop?: Leftovers; nextStartMs?: number } = {};
  const started = performance.now();
  try {
    console.log(`# first start ready in ${fixed(await node.start())} ms; setting up the account`);
    const account = await setUpAccount(api, dns, endpoint.url, FROM);
    endpoint.secret = account.signingSecret;
    const readers = Number(args.readers);
    await importDone(api, await startImport(api, 'reader', readers, RECIPIENT_DOMAIN, account.readersSegment));
    console.log(`# ${readers} contacts in the broadcast segment; load on, killing`);

    const clients = new SoakClients({ url: api.url, smtpPort, apiKey, from: FROM, recipientDomain: RECIPIENT_DOMAIN });
    clients.start({ batchClients: 2, batchSize: 10, smtpClients: 2, eventClients: 1, pauseMs: 200 });
    const work: Promise<unknown>[] = [];
    const imports: { prefix: string; rows: number }[] = [];
    for (let kill = 1; kill <= kills; kill++) {
      // Long work begins now and then, so that kills find it at every stage.
      if (kill % 3 === 1) {
        const prefix = `imp${kill}`;
        imports.push({ prefix, rows: Number(args['import-rows']) });
        work.push(startImport(api, prefix, Number(args['import-rows']), RECIPIENT_DOMAIN, account.importedSegment).then((id) => importDone(api, id)));
      }
      if (kill % 3 === 2) work.push(startBroadcast(api, `Soak broadcast ${kill}`, account.readersSegment, FROM));
      const upSeconds = Number(args['min-up']) + rand() * (Number(args['max-up']) - Number(args['min-up']));
      await sleep(upSeconds * 1000);
      const [held] = await node
        .sql(
          `SELECT (SELECT count(*) FROM deliveries WHERE status = 'queued' AND claimed_by IS NOT NULL)::int AS deliveries,
                  (SELECT count(*) FROM webhook_messages WHERE claimed_by IS NOT NULL)::int AS webhooks`,
        )
        .catch(() => [{ deliveries: Number.NaN, webhooks: Number.NaN }]);
      await node.killTree();
      const before = sink.messages.length;
      const spawned = performance.now();
      const firstDelivery = sink.waitFor(before + 1, 120_000).then(
        () => performance.now() - spawned,
        () => Number.NaN,
      );
      const readyMs = await node.start();
      const restart = { kill, upSeconds, deliveriesHeld: held.deliveries, webhooksHeld: held.webhooks, readyMs, firstDeliveryMs: await firstDelivery };
      restarts.push(restart);
      console.log(
        `# kill ${kill} after ${fixed(upSeconds, 1)} s up (held ${held.deliveries} deliveries, ${held.webhooks} webhooks): ready in ${fixed(readyMs)} ms, first delivery at ${fixed(restart.firstDeliveryMs)} ms; ${clients.ledger.acknowledged.size} emails acknowledged so far`,
      );
    }

    console.log('# last restart done; finishing the requests under way and draining');
    await clients.stop(180_000);
    await Promise.all(work);
    const deadline = Date.now() + Number(args['drain-timeout']) * 1000;
    while (!(await drained((q, p) => node.sql(q, p)))) {
      if (Date.now() > deadline) {
        failures.push(`not drained within ${args['drain-timeout']} s`);
        break;
      }
      await sleep(1000);
    }
    await sleep(3000); // a late second copy would still arrive now
    result = await findings((q, p) => node.sql(q, p), sink, clients.ledger, endpoint, account, imports, readers);
    failures.push(...clients.ledger.refused.map((r) => `refused: ${r}`));
    judge(result, restarts, failures);

    await node.stop();
    leftovers.afterStop = await node.leftovers();
    leftovers.nextStartMs = await node.start();
    await node.stop();
    leftovers.afterNextStop = await node.leftovers();
    for (const [when, left] of [
      ['after the clean stop', leftovers.afterStop],
      ['after the next start and stop', leftovers.afterNextStop],
    ] as const) {
      if (left.postgres.length || left.group.length) failures.push(`${when}: processes still running: ${[...left.postgres, ...left.group].join(' ')}`);
      if (left.postmasterPid || left.startLock || left.registrations.length) failures.push(`${when}: left behind: ${JSON.stringify(left)}`);
    }
    report(run, seed, kills, external, restarts, result, clients.ledger, leftovers, (performance.now() - started) / 1000, failures);
  } catch (err) {
    failures.push(String(err instanceof Error ? err.stack : err));
    await node.killTree().catch(() => {});
  } finally {
    await Promise.all([dns.stop(), sink.stop(), endpoint.stop()]);
    if (external) await adminQuery(externalBase, `DROP DATABASE IF EXISTS ${SOAK_DATABASE} WITH (FORCE)`).catch((err) => failures.push(`drop: ${err}`));
    if (failures.length || process.env.BENCH_KEEP) console.log(`# data directory kept: ${dataDir} (log: ${node.logFile})`);
    else await fs.rm(dataDir, { recursive: true, force: true });
  }
  if (failures.length) {
    console.log(`\nFAILED:\n${failures.map((f) => `- ${f}`).join('\n')}`);
    process.exitCode = 1;
  } else console.log('\nPASSED');
}

/** Turns findings into failures: loss anywhere, a copy beyond the bound, work done twice. */
function judge(f: SoakFindings, restarts: Restart[], failures: string[]): void {
  const held = restarts.reduce((sum, r) => sum + (Number.isNaN(r.deliveriesHeld) ? 0 : r.deliveriesHeld), 0);
  const webhooksHeld = restarts.reduce((sum, r) => sum + (Number.isNaN(r.webhooksHeld) ? 0 : r.webhooksHeld), 0);
  const copies = f.acknowledged.duplicates + f.broadcasts.duplicates + f.automations.duplicates;
  if (f.acknowledged.lost) failures.push(`${f.acknowledged.lost} acknowledged emails never delivered`);
  if (f.broadcasts.lost || f.broadcasts.wrongSize)
    failures.push(`broadcasts: ${f.broadcasts.lost} emails lost, ${f.broadcasts.wrongSize} broadcasts of the wrong size`);
  if (f.automations.lost) failures.push(`${f.automations.lost} automation emails never delivered`);
  if (copies > held) failures.push(`${copies} second copies, beyond the bound of ${held} deliveries held at the kills`);
  if (f.keysAcceptedTwice) failures.push(`${f.keysAcceptedTwice} idempotency keys made two emails`);
  const a = f.automations;
  if (a.runsOfAcknowledged !== a.eventsAcknowledged || a.contactsWithTwoRuns || a.stepsNotOnce)
    failures.push(
      `automations: ${a.runsOfAcknowledged} of ${a.eventsAcknowledged} acknowledged events have one run, ${a.contactsWithTwoRuns} contacts two, ${a.stepsNotOnce} runs without each step once`,
    );
  const i = f.imports;
  if (i.contactsFound !== i.rowsExpected || i.inSegment !== i.rowsExpected || i.notCompleted)
    failures.push(`imports: ${i.contactsFound} / ${i.inSegment} in segment of ${i.rowsExpected} rows, ${i.notCompleted} not completed`);
  const w = f.webhooks;
  if (w.missing || w.notSucceeded || w.eventsWithoutMessage || w.badSignatures)
    failures.push(
      `webhooks: ${w.missing} never delivered, ${w.notSucceeded} not succeeded, ${w.eventsWithoutMessage} events without a message, ${w.badSignatures} bad signatures`,
    );
  if (w.duplicates > webhooksHeld) failures.push(`${w.duplicates} webhooks delivered twice, beyond the ${webhooksHeld} held at the kills`);
  if (f.unknownAtSink) failures.push(`${f.unknownAtSink} messages at the sink are no email of Postline's`);
}

function report(
  run: ReturnType<typeof machine>,
  seed: number,
  kills: number,
  external: boolean,
  restarts: Restart[],
  f: SoakFindings,
  ledger: SoakClients['ledger'],
  leftovers: { afterStop?: Leftovers; nextStartMs?: number },
  seconds: number,
  failures: string[],
): void {
  console.log(
    `\n${table(
      ['kill', 'up (s)', 'deliveries held', 'webhooks held', 'to /readyz 200 (ms)', 'to first delivery (ms)'],
      restarts.map((r) => [r.kill, fixed(r.upSeconds, 1), r.deliveriesHeld, r.webhooksHeld, fixed(r.readyMs), fixed(r.firstDeliveryMs)]),
    )}\n`,
  );
  const a = f.acknowledged;
  const sorted = (xs: number[]) => [...xs].sort((x, y) => x - y);
  const ready = sorted(restarts.map((r) => r.readyMs));
  const first = sorted(restarts.map((r) => r.firstDeliveryMs));
  const median = (xs: number[]) => xs[Math.floor(xs.length / 2)] ?? Number.NaN;
  const rows: [string, string][] = [
    ['kills', String(kills)],
    ['acknowledged emails (API / SMTP)', `${a.expected} (${a.api} / ${a.smtp})`],
    ['delivered / duplicates / lost', `${a.delivered} / ${a.duplicates} / ${a.lost}`],
    ['idempotency keys that made two emails', String(f.keysAcceptedTwice)],
    [
      'retried requests (of them answered "key in flight")',
      `${ledger.retries} (${ledger.inFlightKeyAnswers}); longest wait for an acknowledgement ${fixed(ledger.longestWaitMs / 1000, 1)} s`,
    ],
    [
      'broadcasts × contacts: delivered / duplicates / lost',
      `${f.broadcasts.count} × ${f.broadcasts.contacts}: ${f.broadcasts.delivered} / ${f.broadcasts.duplicates} / ${f.broadcasts.lost}`,
    ],
    [
      'events acknowledged → runs once / emails delivered / duplicates',
      `${f.automations.eventsAcknowledged} → ${f.automations.runsOfAcknowledged} / ${f.automations.delivered} / ${f.automations.duplicates} (unanswered ${ledger.eventsUnanswered})`,
    ],
    [
      'import rows → contacts / in segment',
      `${f.imports.rowsExpected} → ${f.imports.contactsFound} / ${f.imports.inSegment} (${f.imports.count} imports incl. the seed)`,
    ],
    [
      'webhook messages: delivered / duplicated / missing',
      `${f.webhooks.messages}: ${f.webhooks.delivered} / ${f.webhooks.duplicates} / ${f.webhooks.missing}`,
    ],
    ['recovery to /readyz 200, median (max)', `${fixed(median(ready))} (${fixed(ready.at(-1) ?? Number.NaN)}) ms`],
    ['recovery to first delivery, median (max)', `${fixed(median(first))} (${fixed(first.at(-1) ?? Number.NaN)}) ms`],
    ['after the clean stop', JSON.stringify(leftovers.afterStop)],
    ['next start', `ready in ${fixed(leftovers.nextStartMs ?? Number.NaN)} ms`],
    ['queue at the end', JSON.stringify(f.queue)],
    ['soak took', `${fixed(seconds)} s`],
  ];
  console.log(table(['figure', 'value'], rows));
  const file = appendResults('crash-soak', run, [
    {
      db: external ? 'external' : 'embedded',
      seed,
      kills,
      restarts,
      findings: f,
      ledger: {
        retries: ledger.retries,
        inFlightKeyAnswers: ledger.inFlightKeyAnswers,
        longestWaitMs: ledger.longestWaitMs,
        eventsUnanswered: ledger.eventsUnanswered,
      },
      seconds,
      failures,
    },
  ]);
  console.log(`# appended to ${file}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
