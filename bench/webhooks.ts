// Webhook dispatch while mail is being delivered (issue 3, "Speed"): events/s delivered to a
// loopback receiver, and the delay from each state change (the event's created_at, which is
// the time of the transaction that changed the state) to the receiver having the webhook,
// p50/p99/max. Target: keep up with the delivery rate with p99 under 1 s.
//
// Postline runs as its own process with all roles (API, delivery worker and webhook
// dispatcher compete for the same 2 cores, the load generator and receiver too). The
// recipient domain's MX is a counting SMTP sink on loopback. Each email has one recipient and
// records email.sent and email.delivered; every endpoint subscribes to every email event, so
// the webhooks per email = 2 × --endpoints.
//
//   npx tsx bench/webhooks.ts                                  # burst: 5000 emails as fast as accepted
//   npx tsx bench/webhooks.ts --rate 200 --seconds 20          # steady 200 emails/s (latency under load)
//   npx tsx bench/webhooks.ts --db external --endpoints 2
// Env: EXTERNAL_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { CountingSink } from './support/counting-sink.js';
import { batchBody } from './support/emails.js';
import { closeAgents, closedLoop, percentile, postJson, request } from './support/http-load.js';
import { startPostlineProcess, type DbMode } from './support/postline-process.js';
import { appendResults, fixed, machine, printMachine, table } from './support/report.js';
import { startBenchDns, verifiedSendingDomain } from './support/sending-domain.js';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'embedded' },
    n: { type: 'string', default: '5000' },
    clients: { type: 'string', default: '2' },
    rate: { type: 'string', default: '0' },
    seconds: { type: 'string', default: '20' },
    endpoints: { type: 'string', default: '1' },
    timeout: { type: 'string', default: '300' },
  },
});

const EVENTS = ['email.sent', 'email.delivered', 'email.delivery_delayed', 'email.bounced', 'email.failed'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A receiver that answers 200 at once, verifies a sample of signatures, and times arrivals. */
class Receiver {
  unique = new Map<string, number>(); // svix-id → delay ms
  requests = 0;
  badSignatures = 0;
  lastAt = 0;
  secret = '';
  port = 0;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      this.lastAt = performance.now();
      res.writeHead(200).end();
      this.requests++;
      const id = String(req.headers['svix-id']);
      if (this.unique.has(id)) return;
      const body = Buffer.concat(chunks).toString('utf8');
      if (this.requests % 50 === 1) {
        try {
          new Webhook(this.secret).verify(body, req.headers as Record<string, string>);
        } catch {
          this.badSignatures++;
        }
      }
      this.unique.set(id, now - Date.parse(JSON.parse(body).created_at));
    });
  });

  async start(): Promise<this> {
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function main(): Promise<void> {
  const run = machine();
  printMachine(run);
  const db = args.db as DbMode;
  const rate = Number(args.rate);
  const n = rate > 0 ? rate * Number(args.seconds) : Number(args.n);
  const dns = await startBenchDns();
  const sink = await new CountingSink().start();
  const receivers = await Promise.all(Array.from({ length: Number(args.endpoints) }, () => new Receiver().start()));
  const postline = await startPostlineProcess({
    db,
    roles: ['api', 'smtp', 'worker'],
    // The receivers listen on loopback, which endpoints reach only when the operator allows it.
    env: { POSTLINE_DNS_SERVERS: dns.address, POSTLINE_OUTBOUND_PORT: String(sink.port), POSTLINE_WEBHOOK_ALLOW_PRIVATE: 'true' },
    externalUrl: process.env.EXTERNAL_DATABASE_URL,
    label: 'webhooks',
  });
  try {
    await verifiedSendingDomain(postline, dns);
    for (const receiver of receivers) {
      const created = await postJson(postline, '/webhooks', { endpoint: `http://127.0.0.1:${receiver.port}/hook`, events: EVENTS });
      if (created.status !== 201) throw new Error(`POST /webhooks → ${created.status} ${JSON.stringify(created.body)}`);
      receiver.secret = created.body.signing_secret;
    }

    const t0 = performance.now();
    let submitted = 0;
    if (rate > 0) {
      // Open loop: a batch every 100 ms, so the load does not wait on Postline.
      const perTick = Math.max(1, Math.round(rate / 10));
      const inFlight: Promise<unknown>[] = [];
      for (let tick = 0; submitted < n; tick++) {
        const size = Math.min(perTick, n - submitted);
        inFlight.push(request(postline, 'POST', '/emails/batch', batchBody(submitted, size)));
        submitted += size;
        const next = t0 + (tick + 1) * 100;
        await sleep(Math.max(0, next - performance.now()));
      }
      await Promise.all(inFlight);
    } else {
      const load = await closedLoop({
        api: postline,
        path: '/emails/batch',
        concurrency: Number(args.clients),
        maxRequests: Math.ceil(n / 100),
        next: (i) => batchBody(i * 100, Math.min(100, n - i * 100)),
        units: (reply) => reply.body?.data?.length ?? 0,
      });
      if (load.errors) throw new Error(`submit errors: ${load.errors}, first: ${load.firstError}`);
      submitted = load.units;
    }
    const tSubmitted = performance.now();

    // Delivered, and every webhook of every event in.
    const deadline = t0 + Number(args.timeout) * 1000;
    let tDelivered: number | undefined;
    let expected = Infinity;
    while (performance.now() < deadline) {
      if (tDelivered === undefined && sink.messages >= n) tDelivered = performance.now();
      if (tDelivered !== undefined) {
        const [{ count }] = await postline.sql(`SELECT count(*)::int AS count FROM events WHERE type = ANY($1)`, [EVENTS]);
        expected = count * receivers.length;
      }
      if (receivers.reduce((s, r) => s + r.unique.size, 0) >= expected) break;
      await sleep(50);
    }
    const received = receivers.reduce((s, r) => s + r.unique.size, 0);
    const requests = receivers.reduce((s, r) => s + r.requests, 0);
    const lastAt = Math.max(...receivers.map((r) => r.lastAt));
    const delays = receivers.flatMap((r) => [...r.unique.values()]).sort((a, b) => a - b);
    const states = await postline.sql(`SELECT status, count(*)::int AS n FROM webhook_messages GROUP BY status ORDER BY status`);
    // Where the time goes: event → message (fan-out), message → first attempt (claim and queue).
    const [stages] = await postline.sql(`
      SELECT percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM m.created_at - e.created_at) * 1000) AS fan_out,
             percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM a.sent - m.created_at) * 1000) AS claim,
             percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY a.latency_ms) AS http
        FROM webhook_messages m JOIN events e ON e.id = m.event_id
        JOIN (SELECT message_id, min(created_at) AS sent, min(latency_ms) AS latency_ms FROM webhook_attempts GROUP BY message_id) a
          ON a.message_id = m.id`);
    const seconds = (lastAt - t0) / 1000;
    const deliveredSeconds = ((tDelivered ?? performance.now()) - t0) / 1000;
    const result = {
      db,
      mode: rate > 0 ? `open ${rate}/s` : `burst ${args.clients} clients`,
      emails: n,
      endpoints: receivers.length,
      submitSeconds: (tSubmitted - t0) / 1000,
      deliveredPerSecond: n / deliveredSeconds,
      webhooksExpected: expected,
      webhooksReceived: received,
      duplicateRequests: requests - received,
      webhooksPerSecond: received / seconds,
      p50Ms: percentile(delays, 50),
      p90Ms: percentile(delays, 90),
      p99Ms: percentile(delays, 99),
      maxMs: delays.at(-1) ?? NaN,
      badSignatures: receivers.reduce((s, r) => s + r.badSignatures, 0),
      messageStates: Object.fromEntries(states.map((s) => [s.status, s.n])),
      fanOutP50Ms: stages.fan_out[0],
      fanOutP99Ms: stages.fan_out[1],
      claimP50Ms: stages.claim[0],
      claimP99Ms: stages.claim[1],
      httpP50Ms: stages.http[0],
      httpP99Ms: stages.http[1],
    };
    console.log(
      table(
        ['db', 'mode', 'emails', 'endpoints', 'delivered/s', 'webhooks', 'webhooks/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'dup', 'bad sig'],
        [
          [
            db,
            result.mode,
            n,
            receivers.length,
            fixed(result.deliveredPerSecond),
            `${received}/${expected}`,
            fixed(result.webhooksPerSecond),
            fixed(result.p50Ms),
            fixed(result.p90Ms),
            fixed(result.p99Ms),
            fixed(result.maxMs),
            result.duplicateRequests,
            result.badSignatures,
          ],
        ],
      ),
    );
    console.log(`messages: ${JSON.stringify(result.messageStates)}`);
    console.log(
      `event → message (fan-out) p50 ${fixed(result.fanOutP50Ms)} ms, p99 ${fixed(result.fanOutP99Ms)} ms; ` +
        `message → first attempt p50 ${fixed(result.claimP50Ms)} ms, p99 ${fixed(result.claimP99Ms)} ms; ` +
        `HTTP exchange p50 ${fixed(result.httpP50Ms)} ms, p99 ${fixed(result.httpP99Ms)} ms`,
    );
    console.log(`results appended to ${appendResults('webhooks', run, [result])}`);
  } finally {
    closeAgents();
    await postline.stop();
    await Promise.all([...receivers.map((r) => r.stop()), sink.stop(), dns.stop()]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
