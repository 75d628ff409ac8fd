// A node's cache of rows another node may revoke (an API key deleted through any node). An
// entry is used without asking the database again as long as the change feed
// (db/change-feed.ts) vouches that no notice of its key was missed since it was read; when the
// feed cannot vouch (channel down or slow, or a notice of the topic arrived while the row was
// being read) the entry lives `ttlMs`, the bound on how late a revocation may be seen.
//
// Reads go: `const read = cache.begin()` → query the database → `cache.set(key, value, read)`.
import type { ChangeFeed } from '../db/change-feed.js';

interface Entry<V> {
  value: V;
  /** When the read that found it began. */
  readAt: number;
  /** Only for `ttlMs`: the row's absence (a key created later would not be announced), or a notice raced the read. */
  ttlOnly: boolean;
}

interface CacheRead {
  at: number;
  notices: number;
}

export class RevocableCache<V> {
  private entries = new Map<string, Entry<V>>();
  /** Notices of the topic so far: a read during which one arrived may have read the row before its change. */
  private notices = 0;

  constructor(
    private feed: ChangeFeed | undefined,
    topic: string,
    private options: { ttlMs: number; maxEntries: number },
  ) {
    feed?.subscribe(topic, (key) => {
      this.notices++;
      if (key === '*') this.entries.clear();
      else this.entries.delete(key);
    });
  }

  /**
   * The cached value, or undefined when the database must be asked. Answered after the I/O the
   * node has already received: a notice that reached the node before the request that asks is
   * heard first, though both wait in the same turn of the event loop.
   */
  async get(key: string): Promise<V | undefined> {
    if (this.feed) await new Promise((resolve) => setImmediate(resolve));
    const now = Date.now();
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (now - entry.readAt < this.options.ttlMs) return entry.value;
    const since = entry.ttlOnly ? undefined : this.feed?.trustedSince(now);
    if (since !== undefined && entry.readAt >= since) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  begin(): CacheRead {
    return { at: Date.now(), notices: this.notices };
  }

  /** Keeps what a read begun at `read` found; `absent` for "no such row" (kept `ttlMs` only). */
  set(key: string, value: V, read: CacheRead, options: { absent?: boolean } = {}): void {
    if (this.entries.size >= this.options.maxEntries) this.entries.clear();
    this.entries.set(key, { value, readAt: read.at, ttlOnly: options.absent === true || read.notices !== this.notices });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
