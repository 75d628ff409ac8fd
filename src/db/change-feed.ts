// Revocations reach every node at once: the concept that owns a row sends a notice
// (`pg_notify` on one channel, `topic:key`) in the transaction that changes it, PostgreSQL
// delivers it at commit to every node's listening connection, and the node drops what it had
// cached under that key (cluster/revocable-cache.ts).
//
// One connection per node, apart from the pool (a pooled connection cannot stay LISTENing).
// The channel is trusted only while it is shown to work: every PING_MS the node notifies
// itself, and an echo that does not come back within `staleAfterMs` of its sending (a dead
// socket, a pooler that swallows notifications, an overloaded server) makes the channel
// untrusted until the next echo: the caches then fall back to their short lifetime. A lost
// connection is reopened with backoff (RETRY_MIN_MS doubling to RETRY_MAX_MS); notices sent
// while it was down are lost, so nothing read before the new LISTEN is trusted again; one
// silent for SILENT_MS is replaced.
import crypto from 'node:crypto';
import pg from 'pg';

const CHANNEL = 'postline_changes';
const PING_TOPIC = 'ping';
const PING_MS = 500;
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;
/** A connection that echoes nothing for this long is presumed dead (half-open) and replaced. */
const SILENT_MS = 15_000;

/** The notice a changing statement sends, as a SQL expression: `topic` is a literal of the owner's; `keySql` the changed row's key. */
export const changeNoticeSql = (topic: string, keySql: string): string => `pg_notify('${CHANNEL}', '${topic}:' || ${keySql})`;

type Handler = (key: string) => void;

interface ChangeFeedOptions {
  /** How long after a ping was sent its echo vouches for the channel; the caches' lifetimes should not exceed it. */
  staleAfterMs?: number;
  /** The channel stopped or started being trusted (each transition once). */
  onTrustChange?: (trusted: boolean, reason: string) => void;
}

export class ChangeFeed {
  private client: pg.Client | undefined;
  private handlers = new Map<string, Set<Handler>>();
  private readonly pingKey = crypto.randomUUID();
  /** When LISTEN took effect on the current connection; undefined while there is none. */
  private listeningSince: number | undefined;
  /** Send time of the latest echo received on the current connection. */
  private echoedSentAt = 0;
  private trusted = false;
  private stopped = false;
  private pingTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_MIN_MS;

  private readonly staleAfterMs: number;

  constructor(
    private url: string,
    private options: ChangeFeedOptions = {},
  ) {
    this.staleAfterMs = options.staleAfterMs ?? 2_000;
  }

  /** Connects (not waiting when the database refuses: the caches work on their lifetime meanwhile). */
  async start(): Promise<void> {
    await this.connect();
  }

  /** Calls `handler` with the key of every notice of `topic`, and with '*' when everything must be forgotten. */
  subscribe(topic: string, handler: Handler): void {
    let set = this.handlers.get(topic);
    if (!set) this.handlers.set(topic, (set = new Set()));
    set.add(handler);
  }

  /**
   * Since when the channel has carried every notice, when it is trusted now: a read begun at or
   * after this time has heard of every change committed after it. Undefined while untrusted.
   */
  trustedSince(now = Date.now()): number | undefined {
    const fresh = this.listeningSince !== undefined && now - this.echoedSentAt < this.staleAfterMs;
    this.setTrusted(fresh, 'no echo of the channel’s ping in time');
    return fresh ? this.listeningSince : undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.url, application_name: 'postline changes', keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    client.on('error', () => this.lost(client, 'connection error'));
    client.on('end', () => this.lost(client, 'connection closed'));
    client.on('notification', (msg) => this.deliver(msg.payload ?? ''));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch {
      this.lost(client, 'connect or LISTEN failed');
      return;
    }
    if (this.client !== client) return;
    this.listeningSince = Date.now();
    this.retryMs = RETRY_MIN_MS;
    this.ping(client);
    this.pingTimer = setInterval(() => this.ping(client), PING_MS);
    this.pingTimer.unref();
  }

  private ping(client: pg.Client): void {
    if (Date.now() - Math.max(this.echoedSentAt, this.listeningSince ?? 0) > SILENT_MS) return this.lost(client, 'no echo for a while');
    client.query(`SELECT ${changeNoticeSql(PING_TOPIC, '$1')}`, [`${this.pingKey} ${Date.now()}`]).catch(() => {});
  }

  private deliver(payload: string): void {
    const colon = payload.indexOf(':');
    const topic = payload.slice(0, colon);
    const key = payload.slice(colon + 1);
    if (topic === PING_TOPIC) {
      const [from, sentAt] = key.split(' ');
      if (from === this.pingKey) {
        this.echoedSentAt = Math.max(this.echoedSentAt, Number(sentAt));
        this.trustedSince();
      }
      return;
    }
    for (const handler of this.handlers.get(topic) ?? []) handler(key);
  }

  /** The connection is gone: distrust it, forget what it vouched for, and reconnect with backoff. */
  private lost(client: pg.Client, reason: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listeningSince = undefined;
    this.echoedSentAt = 0;
    clearInterval(this.pingTimer);
    client.end().catch(() => {});
    this.setTrusted(false, reason);
    if (this.stopped) return;
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  private setTrusted(trusted: boolean, reason: string): void {
    if (trusted === this.trusted) return;
    this.trusted = trusted;
    this.options.onTrustChange?.(trusted, trusted ? 'echo received' : reason);
  }
}
