// One attempt: POST the message's bytes, signed now, to the endpoint, and report what came
// back. Any 2xx delivers it; anything else (another status, a refused connection, a reset,
// POSTLINE_WEBHOOK_TIMEOUT passing) is a failure that outcomes.ts retries. Redirects are not
// followed: they are answers like any other non-2xx.
//
// The endpoint is a tenant's choice, so the connection goes only where egress/'s rule allows
// (POSTLINE_WEBHOOK_ALLOW_PRIVATE): its host is resolved and checked first, and the
// connection pinned to the checked addresses. A refused destination is a failed attempt whose
// response says why; no connection is made, so nothing of the target's is read or stored.
//
// node:http with keep-alive agents: connections to an endpoint are reused across messages,
// and an AbortController bounds the whole exchange (connect, send, response, body). Only the
// first KB of the response body is kept for the delivery log; a larger body is read on to
// keep the connection reusable, up to MAX_DRAIN_BYTES, after which the connection is dropped.
import http from 'node:http';
import https from 'node:https';
import { pinnedLookup, RefusedDestination, type DestinationPolicy } from '../egress/destination-policy.js';
import type { ClaimedMessage } from './claim.js';
import { signatureHeaders } from './signature.js';

const EXCERPT_BYTES = 1024;
const MAX_DRAIN_BYTES = 256 * 1024;
const USER_AGENT = 'Postline-Webhooks/1.0';

// Idle connections are closed after FREE_SOCKET_MS (the agent's `timeout` destroys free
// sockets), before the 5 s keep-alive timeout of Node's and many other servers: reusing a
// connection the server is closing at that moment would fail the attempt.
const FREE_SOCKET_MS = 4_000;
const agents = {
  http: new http.Agent({ keepAlive: true, maxFreeSockets: 64, timeout: FREE_SOCKET_MS }),
  https: new https.Agent({ keepAlive: true, maxFreeSockets: 64, timeout: FREE_SOCKET_MS }),
};

export interface AttemptResult {
  message: ClaimedMessage;
  ok: boolean;
  /** 0 when no HTTP response came back. */
  statusCode: number;
  latencyMs: number;
  /** The first KB of the response body, or what went wrong. */
  response: string;
  sentAt: Date;
  /** Set when `stop` aborted the attempt: it is not an outcome of the endpoint's. */
  interrupted?: boolean;
}

interface SendOptions {
  timeoutMs: number;
  /** Where endpoints may connect to. */
  destinations: DestinationPolicy;
  /** Aborted at shutdown. */
  stop: AbortSignal;
}

export function sendWebhook(message: ClaimedMessage, options: SendOptions): Promise<AttemptResult> {
  const sentAt = new Date();
  const started = performance.now();
  // One controller per attempt, aborted by its own timer or by `stop` (AbortSignal.any would
  // tie every attempt's signal to the long-lived stop signal).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  const onStop = () => controller.abort();
  options.stop.addEventListener('abort', onStop, { once: true });
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number, response: string, answered = true) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.stop.removeEventListener('abort', onStop);
      const ok = answered && statusCode >= 200 && statusCode < 300;
      const latencyMs = Math.round(performance.now() - started);
      resolve({ message, ok, statusCode, latencyMs, response: clean(response), sentAt, interrupted: !answered && options.stop.aborted ? true : undefined });
    };
    const failure = (err: unknown, statusCode = 0) => {
      if (timedOut) return finish(statusCode, `timed out after ${options.timeoutMs} ms`, false);
      if (options.stop.aborted) return finish(statusCode, 'interrupted: the dispatcher stopped', false);
      finish(statusCode, describe(err), false);
    };

    let url: URL;
    try {
      url = new URL(message.endpoint);
    } catch (err) {
      return failure(err);
    }
    const secure = url.protocol === 'https:';
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(message.body)),
      'user-agent': USER_AGENT,
      ...signatureHeaders(message.secrets, message.id, Math.floor(sentAt.getTime() / 1000), message.body),
    };
    // Bounds the DNS lookup too, which runs before there is a request to abort.
    controller.signal.addEventListener('abort', () => failure(new Error('aborted')), { once: true });
    options.destinations.addresses(url).then(
      (addresses) => {
        if (settled) return;
        const request = (secure ? https : http).request(
          url,
          { method: 'POST', headers, agent: secure ? agents.https : agents.http, lookup: pinnedLookup(addresses), signal: controller.signal },
          (res) => readExcerpt(res, finish, failure),
        );
        request.on('error', (err) => failure(err));
        request.end(message.body);
      },
      (err) => failure(err),
    );
  });
}

/** Keeps the first KB of the response for the log and reads on (to MAX_DRAIN_BYTES) to keep the connection reusable. */
function readExcerpt(
  res: http.IncomingMessage,
  finish: (statusCode: number, response: string) => void,
  failure: (err: unknown, statusCode: number) => void,
): void {
  const status = res.statusCode ?? 0;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let readBytes = 0;
  res.on('data', (chunk: Buffer) => {
    readBytes += chunk.length;
    if (keptBytes < EXCERPT_BYTES) {
      kept.push(chunk.subarray(0, EXCERPT_BYTES - keptBytes));
      keptBytes += Math.min(chunk.length, EXCERPT_BYTES - keptBytes);
    }
    if (readBytes > MAX_DRAIN_BYTES) {
      res.destroy();
      finish(status, Buffer.concat(kept).toString('utf8'));
    }
  });
  res.on('end', () => finish(status, Buffer.concat(kept).toString('utf8')));
  res.on('error', (err) => failure(err, status));
  res.on('close', () => {
    if (!res.complete) failure(new Error('the connection closed before the response ended'), status);
  });
}

function describe(err: unknown): string {
  if (err instanceof RefusedDestination) return `not sent: ${err.message}`;
  const e = err as { code?: string; message?: string };
  return e.code && !e.message?.includes(e.code) ? `${e.code}: ${e.message}` : (e.message ?? String(err));
}

/** PostgreSQL text cannot hold NUL; keep the excerpt printable otherwise as it came. */
function clean(text: string): string {
  return text.replace(/\0/g, '');
}
