// Shared by the webhook tests: a loopback HTTP receiver standing in for a customer's webhook
// endpoint. It verifies every request the way customers do — with the `standardwebhooks`
// library and with the SDK's `resend.webhooks.verify` — counts the attempts per svix-id and
// keeps one payload per svix-id (dedupe). Each test decides how it answers.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Resend } from 'resend';
import { Webhook } from 'standardwebhooks';
import { OTHER_EVENTS } from '../../src/events/catalogue.js';
import { createVerifiedDomain, publishMx } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { closeServer, eventually } from '../support/eventually.js';

interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  payload: any;
  receivedAt: number;
}

/** How the receiver answers one request; `hang` never answers. */
type Answer = { status?: number; body?: string; delayMs?: number; hang?: boolean };

export class WebhookReceiver {
  /** Every request, in arrival order, retries included. */
  requests: ReceivedWebhook[] = [];
  /** Requests per svix-id. */
  attempts = new Map<string, number>();
  /** The first verified payload per svix-id: what a deduping consumer keeps. */
  unique = new Map<string, ReceivedWebhook>();
  /** Requests that failed verification (each test expects none). */
  rejected: { id: string | undefined; error: string }[] = [];
  answer: (webhook: ReceivedWebhook) => Answer = () => ({ status: 200 });
  secret = '';
  port = 0;
  private server = http.createServer((req, res) => this.handle(req, res));
  private hanging = new Set<http.ServerResponse>();
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  constructor(
    private resend: Resend,
    private host = '127.0.0.1',
  ) {
    this.server.keepAliveTimeout = 30_000;
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, this.host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://${this.host}:${this.port}/webhooks`;
  }

  /** Resolves once `check` holds, re-checked on every request (rejects after `timeoutMs`). */
  waitUntil(check: () => boolean, timeoutMs = 15_000, what = 'webhooks'): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.check !== check);
        reject(new Error(`timed out waiting for ${what}: ${this.requests.length} requests, ${this.unique.size} unique`));
      }, timeoutMs);
      this.waiters.push({ check, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** Unique payloads of one type (or all), in arrival order. */
  payloads(type?: string): any[] {
    return [...this.unique.values()].map((w) => w.payload).filter((p) => !type || p.type === type);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    // A sender that goes away mid-request (Postline stopping at the end of a test) resets the
    // connection: that request simply never arrived, as for any real receiver.
    req.on('error', () => {});
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => String(req.headers[name] ?? '');
      const webhook: ReceivedWebhook = {
        id: header('svix-id'),
        timestamp: header('svix-timestamp'),
        signature: header('svix-signature'),
        headers: req.headers,
        body,
        payload: undefined,
        receivedAt: Date.now(),
      };
      try {
        webhook.payload = this.verify(webhook);
      } catch (err) {
        this.rejected.push({ id: webhook.id, error: (err as Error).message });
      }
      this.requests.push(webhook);
      this.attempts.set(webhook.id, (this.attempts.get(webhook.id) ?? 0) + 1);
      const answer = this.answer(webhook);
      const ok = (answer.status ?? 200) >= 200 && (answer.status ?? 200) < 300;
      if (webhook.payload !== undefined && ok && !answer.hang && !this.unique.has(webhook.id)) this.unique.set(webhook.id, webhook);
      this.waiters = this.waiters.filter((w) => (w.check() ? (w.resolve(), false) : true));
      if (answer.hang) {
        this.hanging.add(res);
        res.on('close', () => this.hanging.delete(res));
        return;
      }
      const reply = () => res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain' }).end(answer.body ?? 'ok');
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  }

  /** Both verifiers customers use; each throws on a bad signature or a stale timestamp. */
  private verify(webhook: ReceivedWebhook): any {
    assert.ok(this.secret, 'the receiver needs the endpoint signing secret');
    const headers = {
      'webhook-id': String(webhook.headers['webhook-id']),
      'webhook-timestamp': String(webhook.headers['webhook-timestamp']),
      'webhook-signature': String(webhook.headers['webhook-signature']),
    };
    const viaLibrary = new Webhook(this.secret).verify(webhook.body, headers);
    const viaSdk = this.resend.webhooks.verify({
      payload: webhook.body,
      headers: { id: webhook.id, timestamp: webhook.timestamp, signature: webhook.signature },
      webhookSecret: this.secret,
    });
    assert.deepEqual(viaSdk, viaLibrary);
    return viaLibrary;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await closeServer(this.server);
  }
}

export const SENDER_DOMAIN = 'sender.test';
export const FROM = `Postline Tests <hello@${SENDER_DOMAIN}>`;

/** Fast retries, so a whole retry schedule runs within a test. */
export const FAST_RETRIES = { POSTLINE_WEBHOOK_RETRY_DELAYS: '100ms,200ms,300ms' };

/** The inbox.* kinds, from the event catalogue: a kind added there is subscribed to and awaited. */
export const INBOX_EVENTS = Object.keys(OTHER_EVENTS).filter((type) => type.startsWith('inbox.'));

/** The receivers listen on loopback, which endpoints may reach only when the operator allows it. */
export const LOOPBACK_ENDPOINTS = { POSTLINE_WEBHOOK_ALLOW_PRIVATE: 'true' };

export async function startWebhookTest(env: Record<string, string> = {}): Promise<TestPostline> {
  const t = await startTestPostline({ env: { ...FAST_RETRIES, ...LOOPBACK_ENDPOINTS, ...env } });
  await createVerifiedDomain(t, SENDER_DOMAIN);
  return t;
}

/** Creates an endpoint for `receiver` through the SDK and gives the receiver its secret. */
export async function subscribe(t: TestPostline, receiver: WebhookReceiver, events: string[]): Promise<string> {
  const { data, error } = await t.resend.webhooks.create({ endpoint: receiver.url, events: events as any });
  assert.equal(error, null, JSON.stringify(error));
  receiver.secret = data!.signing_secret;
  return data!.id;
}

export async function send(t: TestPostline, payload: Record<string, unknown>): Promise<string> {
  const { data, error } = await t.resend.emails.send({ from: FROM, subject: 'Hello', html: '<p>Hello there</p>', ...payload } as any);
  assert.equal(error, null, JSON.stringify(error));
  return data!.id;
}

/** Every recorded event of these emails, oldest first, as the outbox holds them. */
export async function recordedEvents(
  t: TestPostline,
  emailIds: string[],
): Promise<{ id: number; type: string; email_id: string; data: any; created_at: Date }[]> {
  return t.sql(`SELECT id, type, email_id, data, created_at FROM events WHERE email_id = ANY($1) ORDER BY id`, [emailIds]);
}

export { eventually, publishMx };

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
