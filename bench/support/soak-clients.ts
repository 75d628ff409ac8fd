// The clients of the crash soak, as real ones behave when their server dies under them: the
// `resend` SDK sending batches with an idempotency key, nodemailer submitting over SMTP with a
// Resend-Idempotency-Key header, both retrying the same request until it is acknowledged (an
// acknowledgement is the promise the soak holds Postline to); custom events for automations,
// sent once and counted only when answered 202 (the route takes no idempotency key, so a retry
// after a lost answer could honestly start a second run); and the webhook endpoint, which
// verifies every request's signature with `standardwebhooks` and counts deliveries per id.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import { Resend } from 'resend';
import { Webhook } from 'standardwebhooks';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const RETRY_MS = 250;

interface SoakTarget {
  url: string;
  smtpPort: number;
  apiKey: string;
  from: string;
  recipientDomain: string;
}

/** What the clients were promised and what they could not get. */
export class Ledger {
  /** Email id → what acknowledged it. */
  readonly acknowledged = new Map<string, 'api' | 'smtp'>();
  /** Custom events answered 202, by the recipient's number. */
  readonly eventsAcknowledged = new Set<number>();
  eventsUnanswered = 0;
  /** Requests sent again after no answer, a 5xx or a 4xx that asks to retry. */
  retries = 0;
  /** Of those, answers `concurrent_idempotent_requests` / 451 4.7.0: a key claimed by a request the kill cut off. */
  inFlightKeyAnswers = 0;
  /** Longest a request waited from its first try to its acknowledgement (ms). */
  longestWaitMs = 0;
  /** Answers that are neither an acknowledgement nor worth retrying: each is a failure of the soak. */
  readonly refused: string[] = [];
}

/** Retries `attempt` until it returns a value, giving up at `deadline()` (epoch ms). */
async function untilAcknowledged<T>(ledger: Ledger, deadline: () => number, attempt: () => Promise<T | 'retry' | 'key-in-flight'>): Promise<T | undefined> {
  const first = Date.now();
  for (let tries = 0; ; tries++) {
    const result = await attempt();
    if (result !== 'retry' && result !== 'key-in-flight') {
      ledger.longestWaitMs = Math.max(ledger.longestWaitMs, Date.now() - first);
      return result;
    }
    if (result === 'key-in-flight') ledger.inFlightKeyAnswers++;
    if (Date.now() > deadline()) return undefined;
    if (tries > 0 || result === 'key-in-flight') ledger.retries++;
    await sleep(result === 'key-in-flight' ? 1_000 : RETRY_MS);
  }
}

/** Client loops that keep sending until `stop()`, then finish what they started (until the deadline). */
export class SoakClients {
  readonly ledger = new Ledger();
  private stopping = false;
  private deadline = Number.POSITIVE_INFINITY;
  private loops: Promise<void>[] = [];
  private nextBatch = 0;
  private nextSubmission = 0;
  private nextEvent = 0;
  private resend: Resend;

  constructor(private target: SoakTarget) {
    this.resend = new Resend(target.apiKey, { baseUrl: target.url });
  }

  start(options: { batchClients: number; batchSize: number; smtpClients: number; eventClients: number; pauseMs: number }): void {
    const loop = async (send: () => Promise<void>) => {
      while (!this.stopping) {
        await send();
        await sleep(options.pauseMs);
      }
    };
    for (let i = 0; i < options.batchClients; i++) this.loops.push(loop(() => this.sendBatch(options.batchSize)));
    for (let i = 0; i < options.smtpClients; i++) this.loops.push(loop(() => this.submit()));
    for (let i = 0; i < options.eventClients; i++) this.loops.push(loop(() => this.sendEvent()));
  }

  /** Stops starting new requests; those under way keep retrying until `deadlineMs` from now. */
  async stop(deadlineMs: number): Promise<void> {
    this.stopping = true;
    this.deadline = Date.now() + deadlineMs;
    await Promise.all(this.loops);
  }

  private async sendBatch(size: number): Promise<void> {
    const n = this.nextBatch++;
    const emails = Array.from({ length: size }, (_, i) => ({
      from: this.target.from,
      to: `api-${n}-${i}@${this.target.recipientDomain}`,
      subject: `soak api ${n}/${i}`,
      html: `<p>Batch ${n}, email ${i}.</p>`,
    }));
    const ids = await untilAcknowledged(
      this.ledger,
      () => this.deadline,
      async () => {
        const { data, error } = await this.resend.batch.send(emails, { idempotencyKey: `soak-batch-${n}` });
        if (data) return data.data.map((e) => e.id);
        if (error?.name === 'concurrent_idempotent_requests') return 'key-in-flight';
        // application_error: no answer (the server is down); 429, 5xx (503 while starting or stopping).
        if (error && (error.name === 'application_error' || error.name === 'rate_limit_exceeded' || error.name === 'internal_server_error')) return 'retry';
        this.ledger.refused.push(`batch ${n}: ${JSON.stringify(error)}`);
        return [];
      },
    );
    for (const id of ids ?? []) this.ledger.acknowledged.set(id, 'api');
  }

  private async submit(): Promise<void> {
    const n = this.nextSubmission++;
    const id = await untilAcknowledged(
      this.ledger,
      () => this.deadline,
      async () => {
        // A connection per message, as most applications submit: a kill cuts sessions, not a pool.
        const transport = nodemailer.createTransport({
          host: '127.0.0.1',
          port: this.target.smtpPort,
          requireTLS: true,
          auth: { user: 'resend', pass: this.target.apiKey },
          tls: { rejectUnauthorized: false }, // Postline's self-signed certificate
          connectionTimeout: 5_000,
          socketTimeout: 20_000,
        });
        try {
          const info = await transport.sendMail({
            from: this.target.from,
            to: `smtp-${n}@${this.target.recipientDomain}`,
            subject: `soak smtp ${n}`,
            text: `Submission ${n}.`,
            headers: { 'Resend-Idempotency-Key': `soak-smtp-${n}` },
          });
          const queued = /queued as ([0-9a-f-]{36})/.exec(info.response)?.[1];
          if (queued) return queued;
          this.ledger.refused.push(`submission ${n}: 250 without an id: ${info.response}`);
          return '';
        } catch (err: any) {
          if (err.responseCode === 451 && /Idempotency/.test(err.response ?? '')) return 'key-in-flight';
          if (err.responseCode === undefined || (err.responseCode >= 400 && err.responseCode < 500)) return 'retry';
          this.ledger.refused.push(`submission ${n}: ${err.response ?? err.message}`);
          return '';
        } finally {
          transport.close();
        }
      },
    );
    if (id) this.ledger.acknowledged.set(id, 'smtp');
  }

  private async sendEvent(): Promise<void> {
    const n = this.nextEvent++;
    const res = await fetch(`${this.target.url}/events/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.target.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'soak.signup', email: `auto-${n}@${this.target.recipientDomain}`, payload: { name: `Auto${n}` } }),
    }).catch(() => undefined);
    await res?.arrayBuffer();
    if (res?.status === 202) this.ledger.eventsAcknowledged.add(n);
    else if (res === undefined || res.status >= 500) this.ledger.eventsUnanswered++;
    else this.ledger.refused.push(`event ${n}: ${res.status}`);
  }
}

/** The customer's webhook endpoint: checks each signature, answers 200, counts deliveries per webhook-id. */
export class SoakWebhookEndpoint {
  readonly deliveries = new Map<string, number>();
  badSignatures = 0;
  private verifier: Webhook | undefined;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        this.verifier!.verify(body, req.headers as Record<string, string>);
      } catch {
        this.badSignatures++;
        res.writeHead(400).end();
        return;
      }
      const id = String(req.headers['webhook-id']);
      this.deliveries.set(id, (this.deliveries.get(id) ?? 0) + 1);
      res.writeHead(200).end('ok');
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }

  /** The endpoint's signing secret (whsec_…), once Postline has created it. */
  set secret(secret: string) {
    this.verifier = new Webhook(secret);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
