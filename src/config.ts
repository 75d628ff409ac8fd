// Environment → one typed, validated config object. Every variable of the operator
// contract (README, docs/ARCHITECTURE.md) is read here and nowhere else.
import os from 'node:os';
import path from 'node:path';
import { asRange, isAddressRange } from './egress/address-ranges.js';
import type { PrivateAccess } from './egress/destination-policy.js';

export type Role = 'api' | 'smtp' | 'worker';
export const ALL_ROLES: Role[] = ['api', 'smtp', 'worker'];

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  publicUrl: string;
  /** SMTP ports with STARTTLS offered / with implicit TLS; port 0 listens on a random free port. */
  smtpPorts: number[];
  smtpsPorts: number[];
  smtpHostname: string;
  /** SMTP: a session idle this long is closed (ms); the DATA of one message must arrive within smtpDataTimeoutMs. */
  smtpTimeoutMs: number;
  smtpDataTimeoutMs: number;
  /** SMTP: open connections per listening port, and per client address over all ports. */
  smtpMaxConnections: number;
  smtpMaxConnectionsPerIp: number;
  /** SMTP: bytes of messages all sessions together may hold in memory while receiving and accepting them. */
  smtpMessageMemoryBytes: number;
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  dnsServers: string[];
  outboundPort: number;
  relayUrl: string | undefined;
  bootstrapApiKey: string | undefined;
  rateLimitPerSecond: number;
  redisUrl: string | undefined;
  logLevel: string;
  /** How long a message may keep being retried before it fails (ms). */
  maxQueueAgeMs: number;
  /** Request logs older than this are deleted (days). */
  logRetentionDays: number;
  /** Largest accepted request body, bytes (40 MB of email after encoding, plus JSON overhead). */
  bodyLimitBytes: number;
  /** Delivery worker: parallel SMTP sessions in total and per destination host. */
  deliveryConcurrency: number;
  deliveryConcurrencyPerHost: number;
  /** Delivery worker: waits before each retry of a temporary failure; the last one repeats. */
  retryDelaysMs: number[];
  /** Webhooks: waits before each retry of a failed attempt (the first attempt is immediate). */
  webhookRetryDelaysMs: number[];
  /** Webhooks: how long one attempt may take before it counts as failed (ms). */
  webhookTimeoutMs: number;
  /** Webhooks: an endpoint whose attempts have all failed for this long is disabled (ms). */
  webhookDisableAfterMs: number;
  /** Webhooks: parallel attempts in total and per endpoint. */
  webhookConcurrency: number;
  webhookConcurrencyPerEndpoint: number;
  /** Webhooks: messages and attempts older than this are deleted (days). */
  webhookLogRetentionDays: number;
  /** Webhooks: which private, loopback or reserved addresses endpoints may reach (egress/). */
  webhookAllowPrivate: PrivateAccess;
  /** Received mail older than this is deleted (ms); undefined: kept. */
  receivedRetentionMs: number | undefined;
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (Fastify's trustProxy):
   * false, true (every one), a number of hops, or addresses and CIDR ranges.
   */
  trustProxy: boolean | number | string;
  /** Requests per second per client address to the public links in mail (tracking, downloads, unsubscribe). */
  publicRateLimitPerSecond: number;
  /** Attachments given by `path`: which private, loopback or reserved addresses URLs may reach (egress/). */
  attachmentFetchAllowPrivate: PrivateAccess;
  /** Attachments given by `path`: the deadline of one fetch, redirects and body included (ms). */
  attachmentFetchTimeoutMs: number;
  /** Broadcasts: contacts per fan-out chunk, i.e. emails accepted (and committed) per transaction. */
  broadcastChunkSize: number;
  /**
   * Run the worker role in a thread of its own when this process also serves the API or SMTP,
   * so accepting and delivering each have an event loop and a core. Default: when the machine
   * has more than one core.
   */
  workerThread: boolean;
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** Comma-separated ports; unset: the fallback; empty: none; 0: a random free port (tests). */
function portList(env: NodeJS.ProcessEnv, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined) return fallback;
  if (raw.trim() === '') return [];
  return raw.split(',').map((part) => {
    const n = Number(part.trim());
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${name}: "${part}" is not a port`);
    return n;
  });
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

/** Durations such as "3d", "12h", "30m", "45s" or a number of seconds. */
function parseDuration(raw: string, name: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!match) throw new ConfigError(`${name}: "${raw}" is not a duration like 3d, 12h, 30m or 45s`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? 's']!;
  return Number(match[1]) * unit;
}

/** Node runs a timer longer than 2^31 − 1 ms (~24.8 days) at once: no timeout may be longer. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A duration that becomes a timer: more than 0 and at most MAX_TIMER_MS. */
function timeout(env: NodeJS.ProcessEnv, name: string, fallback: string): number {
  const ms = parseDuration(env[name] || fallback, name);
  if (ms <= 0 || ms > MAX_TIMER_MS) throw new ConfigError(`${name} must be longer than 0 and at most 24 days, got "${env[name]}"`);
  return ms;
}

function positiveDuration(raw: string, name: string): number {
  const ms = parseDuration(raw, name);
  if (ms <= 0) throw new ConfigError(`${name} must be longer than 0`);
  return ms;
}

/**
 * POSTLINE_TRUST_PROXY: unset or false: the TCP peer is the client; true: every proxy is
 * trusted; a number: that many hops; otherwise addresses and CIDR ranges (comma-separated,
 * or proxy-addr's names loopback, linklocal, uniquelocal).
 */
function trustProxy(raw: string | undefined): boolean | number | string {
  const value = (raw ?? '').trim();
  if (value === '' || /^(false|no|off|0)$/i.test(value)) return false;
  if (/^(true|yes|on)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((e) => e.trim());
  const address = /^(loopback|linklocal|uniquelocal|[0-9a-f.:]+(\/\d{1,3})?)$/i;
  const bad = entries.find((e) => !address.test(e));
  if (bad !== undefined) throw new ConfigError(`POSTLINE_TRUST_PROXY: "${bad}" is not an address, a CIDR range, loopback, linklocal or uniquelocal`);
  return entries.join(',');
}

/**
 * Which non-public addresses a tenant's URLs may reach: unset or false: none; true: every
 * one (closed networks, tests); otherwise addresses and CIDR ranges, comma-separated.
 */
function privateAccess(env: NodeJS.ProcessEnv, name: string): PrivateAccess {
  const value = (env[name] ?? '').trim();
  if (value === '' || /^(false|no|off|0)$/i.test(value)) return false;
  if (/^(true|yes|on|1)$/i.test(value)) return true;
  const entries = value.split(',').map((e) => e.trim());
  const bad = entries.find((e) => !isAddressRange(e));
  if (bad !== undefined) throw new ConfigError(`${name}: "${bad}" is neither true, false, an address nor a CIDR range`);
  return entries.map(asRange);
}

/** A comma-separated list of durations, at least one, each > 0. */
function durationList(env: NodeJS.ProcessEnv, name: string, fallback: string): number[] {
  const raw = env[name] || fallback;
  const list = raw.split(',').map((part) => parseDuration(part, name));
  if (list.some((ms) => ms <= 0)) throw new ConfigError(`${name}: every delay must be > 0`);
  return list;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 3000);
  const dnsServers = (env.POSTLINE_DNS_SERVERS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return {
    port,
    host: env.HOST || '0.0.0.0',
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: path.resolve(env.POSTLINE_DATA_DIR || './data'),
    publicUrl: (env.POSTLINE_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ''),
    smtpPorts: portList(env, 'POSTLINE_SMTP_PORTS', [2587]),
    smtpsPorts: portList(env, 'POSTLINE_SMTPS_PORTS', [2465]),
    smtpHostname: env.POSTLINE_SMTP_HOSTNAME || os.hostname(),
    smtpTimeoutMs: timeout(env, 'POSTLINE_SMTP_TIMEOUT', '60s'),
    smtpDataTimeoutMs: timeout(env, 'POSTLINE_SMTP_DATA_TIMEOUT', '10m'),
    smtpMaxConnections: int(env, 'POSTLINE_SMTP_MAX_CONNECTIONS', 1000, 1),
    smtpMaxConnectionsPerIp: int(env, 'POSTLINE_SMTP_MAX_CONNECTIONS_PER_IP', 50, 1),
    smtpMessageMemoryBytes: int(env, 'POSTLINE_SMTP_MEMORY_MB', 512, 1) * 1024 * 1024,
    tlsCertFile: env.POSTLINE_TLS_CERT || undefined,
    tlsKeyFile: env.POSTLINE_TLS_KEY || undefined,
    dnsServers,
    outboundPort: int(env, 'POSTLINE_OUTBOUND_PORT', 25, 1),
    relayUrl: url(env, 'POSTLINE_RELAY_URL', ['smtp:', 'smtps:']),
    bootstrapApiKey: env.POSTLINE_BOOTSTRAP_API_KEY || undefined,
    rateLimitPerSecond: int(env, 'POSTLINE_RATE_LIMIT', 10, 1),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    logLevel: env.LOG_LEVEL || 'info',
    maxQueueAgeMs: parseDuration(env.POSTLINE_MAX_QUEUE_AGE || '3d', 'POSTLINE_MAX_QUEUE_AGE'),
    logRetentionDays: int(env, 'POSTLINE_LOG_RETENTION_DAYS', 30, 1),
    bodyLimitBytes: int(env, 'POSTLINE_BODY_LIMIT', 60 * 1024 * 1024, 1024),
    deliveryConcurrency: int(env, 'POSTLINE_DELIVERY_CONCURRENCY', 100, 1),
    deliveryConcurrencyPerHost: int(env, 'POSTLINE_DELIVERY_CONCURRENCY_PER_HOST', 20, 1),
    retryDelaysMs: durationList(env, 'POSTLINE_RETRY_DELAYS', '1m,5m,15m,30m,1h,2h,4h'),
    // Resend's schedule: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
    webhookRetryDelaysMs: durationList(env, 'POSTLINE_WEBHOOK_RETRY_DELAYS', '5s,5m,30m,2h,5h,10h,10h'),
    webhookTimeoutMs: timeout(env, 'POSTLINE_WEBHOOK_TIMEOUT', '15s'),
    webhookDisableAfterMs: parseDuration(env.POSTLINE_WEBHOOK_DISABLE_AFTER || '5d', 'POSTLINE_WEBHOOK_DISABLE_AFTER'),
    webhookConcurrency: int(env, 'POSTLINE_WEBHOOK_CONCURRENCY', 200, 1),
    webhookConcurrencyPerEndpoint: int(env, 'POSTLINE_WEBHOOK_CONCURRENCY_PER_ENDPOINT', 50, 1),
    webhookLogRetentionDays: int(env, 'POSTLINE_WEBHOOK_LOG_RETENTION_DAYS', 30, 1),
    webhookAllowPrivate: privateAccess(env, 'POSTLINE_WEBHOOK_ALLOW_PRIVATE'),
    receivedRetentionMs: env.POSTLINE_RECEIVED_RETENTION ? positiveDuration(env.POSTLINE_RECEIVED_RETENTION, 'POSTLINE_RECEIVED_RETENTION') : undefined,
    trustProxy: trustProxy(env.POSTLINE_TRUST_PROXY),
    publicRateLimitPerSecond: int(env, 'POSTLINE_PUBLIC_RATE_LIMIT', 100, 1),
    attachmentFetchAllowPrivate: privateAccess(env, 'POSTLINE_ATTACHMENT_FETCH_ALLOW_PRIVATE'),
    attachmentFetchTimeoutMs: timeout(env, 'POSTLINE_ATTACHMENT_FETCH_TIMEOUT', '10s'),
    broadcastChunkSize: int(env, 'POSTLINE_BROADCAST_CHUNK_SIZE', 2000, 1),
    workerThread: bool(env, 'POSTLINE_WORKER_THREAD', os.availableParallelism() > 1),
  };
}
