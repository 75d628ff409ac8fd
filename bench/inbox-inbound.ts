// Inbound acceptance with and without threading (issue 19, "Speed": threading must not slow
// inbound acceptance by more than 10 %). Inbound mail is filed into an inbox's threads inside
// the receiving transaction (src/inbound/store-received.ts → src/inboxes/file-received.ts), and
// only when an envelope recipient is an inbox's address; mail for any other address of a
// receiving domain takes the same path with one extra query that finds no inbox. So the A/B is:
//   A "no inbox": mail to plain@ a receiving domain with no inbox there;
//   B "inbox":    the same mail to help@ the same domain, an inbox: each message is threaded.
// Each message comes from another MTA over SMTP (STARTTLS, no AUTH, --per-connection messages
// per connection, --sessions at once), ~2 KB of text; half of them answer an earlier message
// of the run (In-Reply-To and References, "Re:" subject), so B both starts threads and finds
// them by reference. Rounds alternate the order (AB, BA, …) on one Postline process
// (--roles api,smtp: no delivery worker); each side's rate is messages/s over its n messages,
// and Postline's + PostgreSQL's CPU per message. The ratio B/A per round, and its median.
//
//   npx tsx bench/inbox-inbound.ts                   # embedded PostgreSQL, 4 rounds of 2,000 per side
//   npx tsx bench/inbox-inbound.ts --db external --rounds 6 --n 3000
//   npx tsx bench/inbox-inbound.ts --side inbox --rounds 1   # one side only (to profile it, e.g. under `perf record -a`); no ratio
// --prefill n (default 10,000) messages go to each side untimed before the rounds: an inbox
// in use holds thousands of messages, and its tables and search index cost more as they grow,
// so the first rounds of an empty inbox would flatter it.
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { closeAgents, percentile, postJson } from './support/http-load.js';
import { CpuMeter } from './support/proc-cpu.js';
import { freePort, startPostlineProcess, type DbMode } from './support/postline-process.js';
import { waitForQuiet } from './support/quiet.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';
import { startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';
import { dotStuffed, SmtpSession } from './support/smtp-client.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded' },
    rounds: { type: 'string', default: '4' },
    n: { type: 'string', default: '2000' },
    sessions: { type: 'string', default: '8' },
    'per-connection': { type: 'string', default: '10' },
    side: { type: 'string' },
    prefill: { type: 'string', default: '10000' },
  },
});
const ROUNDS = Number(args.rounds);
const N = Number(args.n);
const SESSIONS = Number(args.sessions);
const PER_CONNECTION = Number(args['per-connection']);
const PREFILL = Number(args.prefill);
const DOMAIN = 'support.postline-bench.test';
const SIDES = { 'no inbox': `plain@${DOMAIN}`, inbox: `help@${DOMAIN}` } as const;
type Side = keyof typeof SIDES;
const ONLY = args.side as Side | undefined;
if (ONLY !== undefined && !(ONLY in SIDES)) throw new Error(`--side is one of: ${Object.keys(SIDES).join(', ')}`);
const TARGET_RATIO = 0.9;
const WORDS = 'thanks for the order invoice attached please confirm the delivery date and the price of the remaining items we discussed'.split(' ');

interface Measured {
  side: Side;
  round: number;
  perSecond: number;
  postlineCpuUsPerMessage: number;
  postgresCpuUsPerMessage: number;
  machineBusy: number;
}

const dns = await startBenchDns();
const smtpPort = await freePort();
const postline = await startPostlineProcess({
  db: args.db as DbMode,
  roles: ['api', 'smtp'],
  label: 'inbox-inbound',
  env: { POSTLINE_DNS_SERVERS: dns.address, POSTLINE_SMTP_PORTS: String(smtpPort), POSTLINE_SMTPS_PORTS: '' },
});
const run = machine();
printMachine(run);
const measured: Measured[] = [];
try {
  await verifiedSendingDomain(postline, dns, { name: DOMAIN, receiving: true });
  const created = await postJson(postline, '/inboxes', { email_address: SIDES.inbox, name: 'Help desk' });
  if (created.status !== 201) throw new Error(`POST /inboxes → ${created.status} ${JSON.stringify(created.body)}`);
  // Untimed: the inbox as in use (see --prefill), and JIT, pools, TLS warm.
  for (const side of Object.keys(SIDES) as Side[]) await send(side, ONLY === undefined || ONLY === side ? PREFILL + 200 : 200, 'warm');
  for (let round = 1; round <= ROUNDS; round++) {
    const order: Side[] = ONLY ? [ONLY] : round % 2 === 1 ? ['no inbox', 'inbox'] : ['inbox', 'no inbox'];
    for (const side of order) {
      const busy = await waitForQuiet(`round ${round} ${side}`, run.nproc);
      const meter = new CpuMeter(postline.pid, await postline.postgresPids());
      const seconds = await send(side, N, `r${round}`);
      const cpu = meter.stop(await postline.postgresPids());
      const perMessageUs = (pct: number) => ((pct / 100) * seconds * 1e6) / N;
      measured.push({
        side,
        round,
        perSecond: N / seconds,
        postlineCpuUsPerMessage: perMessageUs(cpu.postline),
        postgresCpuUsPerMessage: perMessageUs(cpu.postgres),
        machineBusy: busy,
      });
      console.log(`round ${round} ${side}: ${fixed(N / seconds)} messages/s (others ${cpu.otherTop || 'quiet'})`);
    }
  }
  const [stored] = await postline.sql(
    `SELECT (SELECT count(*)::int FROM inbox_messages) AS threaded, (SELECT count(*)::int FROM inbox_threads) AS threads,
            (SELECT count(*)::int FROM received_emails) AS received`,
  );
  const perSide = ROUNDS * N + PREFILL + 200;
  const threaded = ONLY === 'no inbox' ? 200 : perSide;
  const received = ONLY ? perSide + 200 : perSide * 2;
  if (stored.received !== received || stored.threaded !== threaded)
    throw new Error(`stored ${JSON.stringify(stored)}, expected ${received} received, ${threaded} threaded`);
  console.log(`stored: ${stored.received} received emails, ${stored.threaded} of them in ${stored.threads} threads`);
} finally {
  closeAgents();
  await postline.stop();
  await dns.stop();
}

if (ONLY) {
  for (const m of measured) console.log(`round ${m.round} ${m.side}: CPU µs/msg ${cpu(m)}`);
  process.exit(0);
}
const rows = [];
for (let round = 1; round <= ROUNDS; round++) {
  const [a, b] = (['no inbox', 'inbox'] as const).map((side) => measured.find((m) => m.round === round && m.side === side)!);
  rows.push({ round, a: a!, b: b!, ratio: b!.perSecond / a!.perSecond, cpuRatio: cpuPerMessage(b!) / cpuPerMessage(a!) });
}
const ratios = rows.map((r) => r.ratio).sort((x, y) => x - y);
const cpuRatios = rows.map((r) => r.cpuRatio).sort((x, y) => x - y);
console.log(
  table(
    ['round', 'no inbox msg/s', 'inbox msg/s', 'inbox / no inbox', 'CPU µs/msg no inbox (Postline + PostgreSQL)', 'CPU µs/msg inbox', 'CPU ratio'],
    rows.map((r) => [r.round, fixed(r.a.perSecond), fixed(r.b.perSecond), fixed(r.ratio, 3), cpu(r.a), cpu(r.b), fixed(r.cpuRatio, 3)]),
  ),
);
console.log(
  `median rate ratio ${fixed(percentile(ratios, 50), 3)} (target ≥ ${TARGET_RATIO}); median CPU per message ratio ${fixed(percentile(cpuRatios, 50), 3)}`,
);
const file = appendResults(
  'inbox-inbound',
  run,
  measured.map((m) => ({ db: args.db, n: N, prefill: PREFILL, sessions: SESSIONS, per_connection: PER_CONNECTION, ...m })),
);
console.log(`results appended to ${file}`);

function cpu(m: Measured): string {
  return `${fixed(cpuPerMessage(m))} (${fixed(m.postlineCpuUsPerMessage)} + ${fixed(m.postgresCpuUsPerMessage)})`;
}

function cpuPerMessage(m: Measured): number {
  return m.postlineCpuUsPerMessage + m.postgresCpuUsPerMessage;
}

/** Sends `n` messages to `side`'s address from SESSIONS connections at once; returns the seconds taken. */
async function send(side: Side, n: number, tag: string): Promise<number> {
  const sent: string[] = []; // Message-IDs of this batch, for replies to refer to
  let next = 0;
  const started = performance.now();
  const client = async () => {
    while (next < n) {
      const session = await SmtpSession.open({ port: smtpPort, implicit: false }, 'mx.sender.postline-bench.test');
      for (let k = 0; k < PER_CONNECTION && next < n; k++) {
        const i = next++;
        const message = compose(i, tag, i % 2 === 1 && sent.length > 0 ? sent[Math.floor(Math.random() * sent.length)] : undefined);
        sent.push(message.id);
        const reply = await session.send({ from: message.from, to: SIDES[side], data: message.data });
        if (!reply.startsWith('250')) throw new Error(reply);
      }
      session.quit();
    }
  };
  await Promise.all(Array.from({ length: SESSIONS }, client));
  return (performance.now() - started) / 1000;
}

function compose(i: number, tag: string, inReplyTo: string | undefined): { id: string; from: string; data: Buffer } {
  const id = `<${tag}.${i}.${crypto.randomUUID()}@sender.postline-bench.test>`;
  const from = `customer${i % 97}@sender.postline-bench.test`;
  const topic = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${i}`;
  const body = Array.from({ length: 30 }, (_, l) => Array.from({ length: 10 }, (_, w) => WORDS[(i + l * 3 + w * 5) % WORDS.length]).join(' ')).join('\n');
  const raw = [
    `From: Customer ${i % 97} <${from}>`,
    'To: Help desk <help@support.postline-bench.test>',
    `Subject: ${inReplyTo ? 'Re: earlier question' : `Question about ${topic}`}`,
    `Message-ID: ${id}`,
    ...(inReplyTo ? [`In-Reply-To: ${inReplyTo}`, `References: ${inReplyTo}`] : []),
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
  ].join('\r\n');
  return { id, from, data: dotStuffed(Buffer.from(raw)) };
}
