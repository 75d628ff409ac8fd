// A broadcast to a large segment (issue 5, "Speed"): seconds from POST /broadcasts (send: true)
// until every email is accepted and queued (the broadcast is `sent`), and until the MX sink has
// them all, with the delivery rate. Target: queued within 20 s for 100,000 contacts.
//
// Postline runs as its own process with all roles (the default `postline start`: the worker
// role in its own thread), on the embedded PostgreSQL or an external server. The contacts are
// created through the API beforehand (untimed), all in one segment, at the recipient domain
// whose MX is a counting SMTP sink on loopback. The broadcast's html (1.9 KB) uses a merge tag
// and the unsubscribe link, so every email is rendered, composed and DKIM-signed for its contact.
//
//   npx tsx bench/broadcast.ts                          # 100,000 contacts, embedded PostgreSQL
//   npx tsx bench/broadcast.ts --contacts 20000 --db external --chunk 1000
// Env: EXTERNAL_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { CountingSink } from './support/counting-sink.js';
import { closeAgents, postJson } from './support/http-load.js';
import { CpuMeter, type CpuShares } from './support/proc-cpu.js';
import { startPostlineProcess, type DbMode } from './support/postline-process.js';
import { waitForQuiet } from './support/quiet.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';
import { RECIPIENT_DOMAIN, SENDING_DOMAIN, startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded' },
    contacts: { type: 'string', default: '100000' },
    chunk: { type: 'string' },
    clients: { type: 'string', default: '8' },
    timeout: { type: 'string', default: '900' },
    'cpu-prof': { type: 'string' },
  },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const PARAGRAPH =
  '<p style="font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:22px;color:#333">' +
  'This month we shipped faster scheduling, a cleaner dashboard and better deliverability reports. ' +
  'Read on for the details, and tell us what you would like to see next.</p>';
const HTML =
  '<html><body><h1>Hello {{{FIRST_NAME|there}}}</h1>' +
  PARAGRAPH.repeat(6) +
  '<p><a href="https://bench.postline-bench.test/changelog">Changelog</a></p>' +
  '<p style="font-size:12px"><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a></p></body></html>';

/** Creates `n` contacts in the segment through POST /contacts, `clients` requests at a time. */
async function seedContacts(api: { url: string; apiKey: string }, segmentId: string, n: number, clients: number): Promise<void> {
  let next = 0;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < n) {
        const i = next++;
        const reply = await postJson(api, '/contacts', {
          email: `reader${i}@${RECIPIENT_DOMAIN}`,
          first_name: i % 3 === 0 ? null : `Reader${i}`,
          segments: [{ id: segmentId }],
        });
        if (reply.status !== 201) throw new Error(`POST /contacts → ${reply.status} ${JSON.stringify(reply.body)}`);
        if (++done % 20_000 === 0) console.log(`# ${done} contacts (${fixed(done / ((performance.now() - started) / 1000))}/s)`);
      }
    }),
  );
}

async function main(): Promise<void> {
  const run = machine();
  printMachine(run);
  const db = args.db as DbMode;
  const n = Number(args.contacts);
  const dns = await startBenchDns();
  const sink = await new CountingSink().start();
  const postline = await startPostlineProcess({
    db,
    roles: ['api', 'smtp', 'worker'],
    env: {
      POSTLINE_DNS_SERVERS: dns.address,
      POSTLINE_OUTBOUND_PORT: String(sink.port),
      POSTLINE_PUBLIC_URL: 'https://mail.postline-bench.test',
      ...(args.chunk ? { POSTLINE_BROADCAST_CHUNK_SIZE: args.chunk } : {}),
    },
    externalUrl: process.env.EXTERNAL_DATABASE_URL,
    cpuProfDir: args['cpu-prof'],
    label: 'broadcast',
  });
  try {
    await verifiedSendingDomain(postline, dns);
    const segment = await postJson(postline, '/segments', { name: 'Everyone' });
    if (segment.status !== 201) throw new Error(`POST /segments → ${segment.status} ${JSON.stringify(segment.body)}`);
    const seedStart = performance.now();
    await seedContacts(postline, segment.body.id, n, Number(args.clients));
    const seedSeconds = (performance.now() - seedStart) / 1000;
    console.log(`# seeded ${n} contacts in ${fixed(seedSeconds, 1)} s`);
    await postline.sql('VACUUM ANALYZE');

    await waitForQuiet('broadcast', run.nproc);
    const meter = new CpuMeter(postline.pid, await postline.postgresPids());
    const t0 = performance.now();
    const created = await postJson(postline, '/broadcasts', {
      segment_id: segment.body.id,
      from: `News <news@${SENDING_DOMAIN}>`,
      subject: 'News for {{{FIRST_NAME|you}}}',
      html: HTML,
      send: true,
    });
    if (created.status !== 201) throw new Error(`POST /broadcasts → ${created.status} ${JSON.stringify(created.body)}`);
    const tAnswered = performance.now();
    const id = created.body.id as string;

    const deadline = t0 + Number(args.timeout) * 1000;
    let tQueued: number | undefined;
    let tDelivered: number | undefined;
    let deliveredAtQueued = 0;
    let queueCpu: CpuShares | undefined;
    while (performance.now() < deadline && tDelivered === undefined) {
      if (tQueued === undefined) {
        const [row] = await postline.sql('SELECT status, recipients FROM broadcasts WHERE id = $1', [id]);
        if (row.status === 'sent') {
          tQueued = performance.now();
          deliveredAtQueued = sink.messages;
          queueCpu = meter.stop(await postline.postgresPids());
        }
      }
      if (sink.messages >= n) tDelivered = performance.now();
      else await sleep(50);
    }
    const totalCpu = meter.stop(await postline.postgresPids());
    const [span] = await postline.sql(
      `SELECT count(*)::int AS emails, extract(epoch FROM max(created_at) - min(created_at)) AS accept_s,
              extract(epoch FROM min(created_at) - (SELECT sent_at FROM broadcasts WHERE id = $1)) AS first_email_s
         FROM emails WHERE broadcast_id = $1`,
      [id],
    );
    const s = (t: number | undefined) => (t === undefined ? NaN : (t - t0) / 1000);
    const result = {
      db,
      contacts: n,
      chunk: Number(args.chunk ?? 500),
      seedSeconds,
      answerMs: tAnswered - t0,
      queuedSeconds: s(tQueued),
      queuedPerSecond: n / s(tQueued),
      deliveredSeconds: s(tDelivered),
      deliveredPerSecond: n / s(tDelivered),
      deliveredWhileQueuing: deliveredAtQueued,
      sinkMessages: sink.messages,
      emails: span.emails,
      firstEmailAfterClaimS: Number(span.first_email_s),
      acceptSpanS: Number(span.accept_s),
      queueCpu,
      totalCpu,
    };
    console.log(
      table(
        ['db', 'contacts', 'POST ms', 'queued s', 'queued/s', 'all at sink s', 'delivered/s', 'delivered while queuing', 'emails'],
        [
          [
            db,
            n,
            fixed(result.answerMs),
            fixed(result.queuedSeconds, 1),
            fixed(result.queuedPerSecond),
            fixed(result.deliveredSeconds, 1),
            fixed(result.deliveredPerSecond),
            deliveredAtQueued,
            span.emails,
          ],
        ],
      ),
    );
    const cpu = (c: CpuShares | undefined) =>
      c ? `postline ${c.postline}% (main thread ${c.postlineMain}%), postgres ${c.postgres}%, other ${c.other}% (${c.otherTop})` : 'n/a';
    console.log(`# CPU % of one core while queuing: ${cpu(queueCpu)}`);
    console.log(`# CPU % of one core until all delivered: ${cpu(totalCpu)}`);
    console.log(`# first email ${fixed(result.firstEmailAfterClaimS * 1000)} ms after the claim; emails accepted over ${fixed(result.acceptSpanS, 1)} s`);
    console.log(`results appended to ${appendResults('broadcast', run, [result])}`);
  } finally {
    closeAgents();
    await postline.stop();
    await Promise.all([sink.stop(), dns.stop()]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
