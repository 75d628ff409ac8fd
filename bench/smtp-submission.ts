// SMTP submission throughput (issue 4, "Speed"): messages/s accepted (250 after DATA, i.e.
// committed) over SMTP by Postline with 20 concurrent authenticated sessions, with one message
// per connection (connect, EHLO, STARTTLS, EHLO, AUTH, MAIL, RCPT, DATA, QUIT each time) and
// with 100 messages per connection. The counterpart of the peers' smtp-source runs against
// Postfix (bench/smtp-vs-peers.sh runs both in one round loop).
//
// Postline runs as its own process with --roles api,smtp (no delivery worker: this measures
// accepting: TLS, AUTH, parse, validate, commit). `--delivering` runs every role instead and
// delivers (signs, sends) to an smtp-sink while accepting, as Postfix delivers to the peers'
// smtp-sink during its own submit measurement. The generator runs on the same 2 cores:
// `--client c` (default, support/smtp-tls-source.c: C and OpenSSL like the peers' smtp-source,
// STARTTLS with a full handshake per connection, AUTH PLAIN, one command at a time),
// `--client lean` (the same in Node, support/smtp-client.ts) or `--client nodemailer`
// (nodemailer's SMTPConnection, as applications use it). On 2026-11-25's machine the C client
// cost ~1.7 ms of the shared CPU per connection and nodemailer ~2.4 ms (most of either the TLS
// handshake); the rates measured with the two were alike (docs/BENCHMARKS-history.md §4).
// `--server tls-floor|smtp-server` runs the same load against a floor instead of Postline
// (support/floor-server.ts: Node's TCP+TLS with a reply per line, or bare smtp-server), to
// show what of a session's cost is Postline's own. `--server postfix-tls` (root, the peers'
// setup) runs it against Postfix configured as the peers' scenario B plus STARTTLS
// (support/postfix-tls.sh; no AUTH: that Postfix has no SASL), Postfix paying for TLS too.
//
//   npx tsx bench/smtp-submission.ts                          # both modes, N=10000, embedded PG
//   npx tsx bench/smtp-submission.ts --per-connection 1 --n 5000 --label D-postline-smtp --run 1 --results /tmp/mta-bench/results.tsv
//   npx tsx bench/smtp-submission.ts --server smtp-server     # the bare library's rate
// Env: EXTERNAL_DATABASE_URL (with --db external), POSTLINE_ENTRY=dist to run the build.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import MailComposer from 'nodemailer/lib/mail-composer';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { email } from './support/emails.js';
import { dotStuffed, SmtpSession, type SubmissionTarget } from './support/smtp-client.js';
import { runTlsSource, writeMessagesFile } from './support/smtp-tls-source.js';
import { CpuMeter, type CpuShares } from './support/proc-cpu.js';
import { freePort, startPostlineProcess, type DbMode } from './support/postline-process.js';
import { waitForQuiet } from './support/quiet.js';
import { appendResults, machine, printMachine, table } from './support/report.js';
import { startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';
import { startSmtpSink } from './support/smtp-sink.js';

const here = path.dirname(fileURLToPath(import.meta.url));

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: process.env.N ?? '10000' },
    sessions: { type: 'string', default: process.env.SESSIONS ?? '20' },
    'per-connection': { type: 'string', default: '1,100' }, // 0: sessions only (TLS, AUTH, QUIT)
    tls: { type: 'string', default: 'starttls' }, // or implicit
    db: { type: 'string', default: 'embedded' },
    label: { type: 'string' }, // D-postline-smtp, or D-floor-<server>
    run: { type: 'string', default: '1' },
    results: { type: 'string' }, // the peers' results.tsv: one row per mode
    'warmup-messages': { type: 'string', default: '500' },
    'cpu-prof': { type: 'string' },
    client: { type: 'string', default: 'c' }, // or lean, nodemailer
    delivering: { type: 'boolean', default: false },
    server: { type: 'string', default: 'postline' }, // or tls-floor, smtp-server (support/floor-server.ts), postfix-tls
  },
});

const label = args.label ?? (args.server === 'postline' ? 'D-postline-smtp' : args.server === 'postfix-tls' ? 'E-postfix-tls' : `D-floor-${args.server}`);

interface Row {
  scenario: string;
  perConnection: number;
  n: number;
  seconds: number;
  accepted: number;
  committed: number;
  errors: number;
  firstError?: string;
  perSecond: number;
  cpu: CpuShares;
  /** Average wait for each step's reply, ms (the C generator): where a session's time goes. */
  stepMs?: Record<string, number>;
}

type Target = SubmissionTarget;
type BenchMessage = { from: string; to: string; raw: Buffer; data: Buffer };

/** A connected, authenticated session of the chosen client. */
interface ClientSession {
  send(message: BenchMessage): Promise<void>;
  quit(): void;
}

async function openSession(target: Target): Promise<ClientSession> {
  if (args.client === 'nodemailer') {
    const conn = await open(target);
    return { send: (message) => send(conn, message), quit: () => conn.quit() };
  }
  const session = await SmtpSession.open(target);
  return {
    send: async (message) => {
      const reply = await session.send(message);
      if (!/^250 /.test(reply)) throw new Error(reply);
    },
    quit: () => session.quit(),
  };
}

function open(target: Target): Promise<SMTPConnection> {
  const conn = new SMTPConnection({
    host: '127.0.0.1',
    port: target.port,
    secure: target.implicit,
    requireTLS: !target.implicit,
    name: 'client.bench.invalid',
    tls: { rejectUnauthorized: false },
    logger: false,
  });
  conn.on('error', () => {});
  return new Promise((resolve, reject) => {
    conn.once('error', reject);
    conn.connect(() => conn.login({ user: 'resend', pass: target.apiKey }, (err) => (err ? reject(err) : resolve(conn))));
  });
}

function send(conn: SMTPConnection, message: { from: string; to: string; raw: Buffer }): Promise<void> {
  return new Promise((resolve, reject) => {
    conn.send({ from: message.from, to: [message.to] }, message.raw, (err, info) => {
      if (err) return reject(err);
      if (!/^250 /.test(info.response)) return reject(new Error(info.response));
      resolve();
    });
  });
}

let messagesFile: string | undefined;

/** N messages over `sessions` concurrent loops, `perConnection` messages per connection. */
async function load(target: Target, messages: BenchMessage[], n: number, sessions: number, perConnection: number) {
  if (args.client === 'c') return runTlsSource(target, (messagesFile ??= writeMessagesFile(messages)), n, sessions, perConnection);
  let next = 0;
  let accepted = 0;
  let errors = 0;
  let firstError: string | undefined;
  const loop = async () => {
    while (next < n) {
      let conn: ClientSession | undefined;
      try {
        conn = await openSession(target);
        for (let k = 0; k < perConnection && next < n; k++) {
          const i = next++;
          await conn.send(messages[i % messages.length]!);
          accepted++;
        }
      } catch (err) {
        errors++;
        firstError ??= (err as Error).message;
        if (errors > 100) throw new Error(`too many errors, first: ${firstError}`);
      } finally {
        conn?.quit();
      }
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: sessions }, loop));
  return { seconds: (performance.now() - t0) / 1000, accepted, errors, firstError };
}

/** What the generator submits to: Postline, or one of the floors under it. */
interface SubmissionServer {
  target: Target;
  pid: number;
  postgresPids(): Promise<number[]>;
  /** Messages stored so far (undefined: the server keeps none, so accepted counts as committed). */
  stored(): Promise<number | undefined>;
  stop(): Promise<void>;
}

async function startPostline(implicit: boolean): Promise<SubmissionServer> {
  const dns = await startBenchDns();
  const sink = args.delivering ? await startSmtpSink(await freePort()) : undefined;
  const [starttlsPort, implicitPort] = [await freePort(), await freePort()];
  const postline = await startPostlineProcess({
    db: args.db as DbMode,
    roles: sink ? ['api', 'smtp', 'worker'] : ['api', 'smtp'],
    env: {
      POSTLINE_DNS_SERVERS: dns.address,
      POSTLINE_SMTP_PORTS: String(starttlsPort),
      POSTLINE_SMTPS_PORTS: String(implicitPort),
      ...(sink && { POSTLINE_OUTBOUND_PORT: String(sink.port) }),
    },
    externalUrl: process.env.EXTERNAL_DATABASE_URL,
    cpuProfDir: args['cpu-prof'],
    label: 'smtp-submission',
  });
  const stop = async () => {
    await postline.stop();
    await dns.stop();
    sink?.stop();
  };
  try {
    await verifiedSendingDomain(postline, dns);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    target: { port: implicit ? implicitPort : starttlsPort, implicit, apiKey: postline.apiKey },
    pid: postline.pid,
    postgresPids: () => postline.postgresPids(),
    stored: async () => (await postline.sql<{ n: number }>(`SELECT count(*)::int AS n FROM emails`))[0]!.n,
    stop,
  };
}

async function startFloor(kind: string, implicit: boolean): Promise<SubmissionServer> {
  if (implicit) throw new Error('the floor servers speak STARTTLS only');
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'support/floor-server.ts'), kind, String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`floor-server ${kind} exited with ${code}`)));
    child.stdout!.once('data', () => resolve());
  });
  return {
    target: { port, implicit: false, apiKey: 'floor' },
    pid: child.pid!,
    postgresPids: async () => [],
    stored: async () => undefined,
    stop: async () => {
      child.removeAllListeners('exit');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}

/** Postfix with STARTTLS (support/postfix-tls.sh); its processes' CPU shows under "other". */
async function startPostfixTls(implicit: boolean): Promise<SubmissionServer> {
  if (implicit) throw new Error('the Postfix run speaks STARTTLS only');
  if (args.client !== 'c') throw new Error('the Postfix run needs --client c (the one that can leave AUTH out)');
  const script = path.join(here, 'support/postfix-tls.sh');
  const run = (command: string) => execFileSync('bash', [script, command], { stdio: ['ignore', 'ignore', 'inherit'] });
  run('start');
  const queue = execFileSync('postconf', ['-h', 'queue_directory'], { encoding: 'utf8' }).trim();
  return {
    target: { port: Number(process.env.POSTFIX_PORT ?? 2525), implicit: false, apiKey: '-' }, // '-': no AUTH
    pid: Number(fs.readFileSync(path.join(queue, 'pid/master.pid'), 'utf8').trim()),
    postgresPids: async () => [],
    stored: async () => undefined, // Postfix answers 250 once the message is queued and fsynced
    stop: async () => void run('stop'),
  };
}

function startServer(implicit: boolean): Promise<SubmissionServer> {
  if (args.server === 'postline') return startPostline(implicit);
  if (args.server === 'postfix-tls') return startPostfixTls(implicit);
  return startFloor(args.server!, implicit);
}

/** CPU µs per message (per connection with --per-connection 0) from a share of one core. */
const cpuPer = (r: Row, percent: number) => Math.round((percent / 100) * 1e6 * (r.seconds / Math.max(1, r.perConnection === 0 ? r.n : r.committed)));

async function main(): Promise<void> {
  const run = machine();
  printMachine(run);
  const n = Number(args.n);
  const sessions = Number(args.sessions);
  const modes = args['per-connection']!.split(',').map(Number);
  const implicit = args.tls === 'implicit';
  const serving =
    args.server === 'postline'
      ? `Postline --roles ${args.delivering ? 'api,smtp,worker (delivering)' : 'api,smtp'} (${args.db})`
      : args.server === 'postfix-tls'
        ? "Postfix, the peers' configuration with STARTTLS (support/postfix-tls.sh), no AUTH"
        : `the ${args.server} floor (support/floor-server.ts)`;
  console.log(
    `# ${n} messages of ~2 KB html per mode, ${sessions} sessions, ${implicit ? 'implicit TLS' : 'STARTTLS'}${args.server === 'postfix-tls' ? '' : ' + AUTH PLAIN'}, ${args.client} client; ${serving}`,
  );

  const server = await startServer(implicit);
  const rows: Row[] = [];
  try {
    const messages = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const e = email(i);
        const raw = await new MailComposer(e).compile().build();
        return { from: `orders@${e.from.split('@')[1]!.replace('>', '')}`, to: e.to[0]!, raw, data: dotStuffed(raw) };
      }),
    );
    await load(server.target, messages, Number(args['warmup-messages']), sessions, 10); // JIT, pools, TLS key in cache
    for (const perConnection of modes) {
      await waitForQuiet(`${perConnection} per connection`, run.nproc);
      const before = await server.stored();
      const meter = new CpuMeter(server.pid, await server.postgresPids());
      const result = await load(server.target, messages, n, sessions, perConnection);
      const cpu = meter.stop(await server.postgresPids());
      const after = await server.stored();
      rows.push({
        scenario: `${label}${args.delivering && !label.endsWith('-delivering') ? '-delivering' : ''}-${perConnection}`,
        perConnection,
        n,
        ...result,
        committed: after === undefined ? result.accepted : after - before!,
        // --per-connection 0 opens sessions (TLS, AUTH) and sends nothing: its rate is of connections.
        perSecond: Math.round((perConnection === 0 ? n : result.accepted) / result.seconds),
        cpu,
      });
      const steps = result.stepMs
        ? ` (waits, ms: ${Object.entries(result.stepMs)
            .map(([step, ms]) => `${step} ${ms.toFixed(2)}`)
            .join(', ')})`
        : '';
      console.log(`${perConnection} per connection: ${rows.at(-1)!.perSecond} ${perConnection === 0 ? 'connections' : 'messages'}/s${steps}`);
    }
  } finally {
    await server.stop();
  }

  console.log(
    '\n' +
      table(
        [
          'scenario',
          'msgs/conn',
          'messages',
          's',
          'accepted',
          'committed',
          'errors',
          'msgs/s (conn/s at 0)',
          `CPU % ${args.server} (main)/pg/gen/other`,
          `CPU µs/msg (/conn at 0) ${args.server}/pg`,
        ],
        rows.map((r) => [
          r.scenario,
          r.perConnection,
          r.n,
          r.seconds.toFixed(2),
          r.accepted,
          r.committed,
          r.errors,
          r.perSecond,
          `${r.cpu.postline} (${r.cpu.postlineMain})/${r.cpu.postgres}/${r.cpu.generator}/${r.cpu.other}`,
          `${cpuPer(r, r.cpu.postline)}/${cpuPer(r, r.cpu.postgres)}`,
        ]),
      ),
  );
  for (const r of rows) if (r.firstError) console.log(`! ${r.scenario}: ${r.errors} errors, first: ${r.firstError}`);
  for (const r of rows) if (r.cpu.other >= 10) console.log(`! ${r.scenario}: other processes used ${r.cpu.other}% of a core (${r.cpu.otherTop})`);
  if (args.results) {
    // The peers' results.tsv columns; submit and "end to end" are the same here (accepting is the whole run).
    for (const r of rows) {
      const status = r.errors || r.committed !== r.n ? `errors=${r.errors},committed=${r.committed}` : 'ok';
      const rate = (r.accepted / r.seconds).toFixed(1);
      fs.appendFileSync(
        args.results,
        `${[r.scenario, args.run, r.n, r.seconds.toFixed(3), rate, r.seconds.toFixed(3), rate, r.committed, status].join('\t')}\n`,
      );
    }
  }
  console.log(
    `\nresults appended to ${appendResults(
      'smtp-submission',
      run,
      rows.map((r) => ({ ...r, run: Number(args.run), db: args.db, tls: args.tls, sessions })),
    )}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
