// The gauges read when /metrics is scraped rather than recorded as things happen: a thread's
// database pool and event-loop lag (each thread samples its own), and the queue's depth, which
// only the node serving /metrics reads from the database.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';
import type { Db } from '../db/database.js';
import { QUEUE_STATES, queueStateSql, unfinishedSql, type QueueState } from '../queue/states.js';
import { blocklistListed, dbPoolConnections, dbPoolSize, dbPoolWaiting, eventLoopLag, queueDeliveries, queueOldestAge } from './definitions.js';
import type { Thread } from './record.js';

const thread: Thread = isMainThread ? 'main' : 'worker';

type Pool = Db['pool'];
/** The pools of this thread's running Postlines (one, except in a test process). */
const pools = new Set<Pool>();
let eventLoop: IntervalHistogram | undefined;

/** Samples `db`'s pool and this thread's event loop on each scrape, until the returned function is called. */
export function watchThread(db: Db): () => void {
  pools.add(db.pool);
  if (!eventLoop) {
    // 10 ms resolution: the lag worth reporting is in tens of milliseconds; the timer costs nothing measurable.
    eventLoop = monitorEventLoopDelay({ resolution: 10 });
    eventLoop.enable();
  }
  return () => {
    pools.delete(db.pool);
    if (pools.size === 0 && eventLoop) {
      eventLoop.disable();
      eventLoop = undefined;
    }
  };
}

/** Sets this thread's pool and event-loop gauges; the lag figures start again from here. */
export function sampleThread(): void {
  let busy = 0;
  let idle = 0;
  let waiting = 0;
  let max = 0;
  for (const pool of pools) {
    busy += pool.totalCount - pool.idleCount;
    idle += pool.idleCount;
    waiting += pool.waitingCount;
    max += pool.options.max ?? 0;
  }
  dbPoolConnections.set({ thread, state: 'busy' }, busy);
  dbPoolConnections.set({ thread, state: 'idle' }, idle);
  dbPoolWaiting.set({ thread }, waiting);
  dbPoolSize.set({ thread }, max);
  if (!eventLoop) return;
  // The histogram is in nanoseconds; with no sample yet (a fresh thread) its figures are NaN or 0.
  const seconds = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
  eventLoopLag.set({ thread, stat: 'mean' }, seconds(eventLoop.mean));
  eventLoopLag.set({ thread, stat: 'p50' }, seconds(eventLoop.percentile(50)));
  eventLoopLag.set({ thread, stat: 'p99' }, seconds(eventLoop.percentile(99)));
  eventLoopLag.set({ thread, stat: 'max' }, seconds(eventLoop.max));
  eventLoop.reset();
}

/** A scrape reads the database at most this often; the ones in between get the last figures. */
const QUEUE_CACHE_MS = 5_000;
/** A scrape waits at most this long for the count; a slower one lands in a later scrape. */
const QUEUE_DEADLINE_MS = 2_000;

// One pass over the unfinished deliveries (the partial index deliveries_unfinished covers
// exactly them), installation-wide: operators watch the whole queue, accounts see their own
// through the queue API.
const QUEUE_SQL = `
SELECT state, count(*)::float8 AS deliveries, extract(epoch FROM now() - min(created_at))::float8 AS oldest
  FROM (SELECT ${queueStateSql('d')} AS state, d.created_at FROM deliveries d WHERE ${unfinishedSql('d')}) unfinished
 GROUP BY state`;

/** Gauges read from the database on scrape, at most every QUEUE_CACHE_MS; `read` sets them (a failed read keeps the last figures). */
abstract class ReadOnScrape {
  private readAt = 0;
  private reading: Promise<void> | undefined;

  constructor(protected db: Db) {}

  /** Refreshes the gauges when the last read is older than QUEUE_CACHE_MS; concurrent scrapes share one read. */
  async sample(): Promise<void> {
    if (!this.reading && Date.now() - this.readAt >= QUEUE_CACHE_MS) {
      this.readAt = Date.now();
      this.reading = this.read().finally(() => (this.reading = undefined));
    }
    if (!this.reading) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, QUEUE_DEADLINE_MS)));
    await Promise.race([this.reading, deadline]);
    clearTimeout(timer);
  }

  protected abstract read(): Promise<void>;
}

/** The queue's depth by state and the age of its oldest delivery, counted on scrape. */
export class QueueDepth extends ReadOnScrape {
  constructor(db: Db) {
    super(db);
    for (const state of QUEUE_STATES) {
      queueDeliveries.set({ state }, 0);
      queueOldestAge.set({ state }, 0);
    }
  }

  protected async read(): Promise<void> {
    // A failed count keeps the previous figures: /readyz and the pool gauges tell about the database.
    const rows = await this.db.query<{ state: QueueState; deliveries: number; oldest: number }>(QUEUE_SQL).catch(() => undefined);
    if (!rows) return;
    const byState = new Map(rows.map((r) => [r.state, r]));
    for (const state of QUEUE_STATES) {
      queueDeliveries.set({ state }, byState.get(state)?.deliveries ?? 0);
      queueOldestAge.set({ state }, Math.max(0, byState.get(state)?.oldest ?? 0));
    }
  }
}

/** The blocklist checks (blocklists/round.ts), one series per target and zone; 1 while listed. */
const BLOCKLIST_SQL = 'SELECT kind, target, zone, listed FROM blocklist_checks';

/** postline_blocklist_listed, read from blocklist_checks on scrape (at most every QUEUE_CACHE_MS). */
export class BlocklistListings extends ReadOnScrape {
  protected async read(): Promise<void> {
    // A failed read keeps the previous figures, as the queue's does.
    const rows = await this.db.query<{ kind: string; target: string; zone: string; listed: boolean }>(BLOCKLIST_SQL).catch(() => undefined);
    if (!rows) return;
    // Targets and zones no longer watched lose their series.
    blocklistListed.reset();
    for (const r of rows) blocklistListed.set({ kind: r.kind, target: r.target, zone: r.zone }, r.listed ? 1 : 0);
  }
}
