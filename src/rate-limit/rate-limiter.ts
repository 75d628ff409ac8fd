// Per-account request rate limit, IETF draft-ietf-httpapi-ratelimit-headers style headers on
// every response. A fixed one-second window: in-process by default, shared by all nodes
// through Redis when REDIS_URL is set (falling back to in-process while Redis is down).
import { Redis } from 'ioredis';

export interface RateDecision {
  limit: number;
  remaining: number;
  resetSeconds: number;
  allowed: boolean;
}

export interface RateLimiter {
  hit(key: string): Promise<RateDecision>;
  close(): Promise<void>;
}

const WINDOW_MS = 1000;
const COMMAND_TIMEOUT_MS = 200;

function decide(limit: number, count: number, windowStart: number): RateDecision {
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((windowStart + WINDOW_MS - Date.now()) / 1000)),
    allowed: count <= limit,
  };
}

export function memoryRateLimiter(limit: number): RateLimiter {
  let window = 0;
  let counts = new Map<string, number>();
  return {
    async hit(key) {
      const current = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS;
      if (current !== window) {
        window = current;
        counts = new Map();
      }
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return decide(limit, count, window);
    },
    async close() {},
  };
}

/**
 * Counters in Redis, shared by every node. Redis is an optimisation of fairness, never a
 * dependency of serving: while it is unreachable (not connected, or slower than
 * COMMAND_TIMEOUT_MS) each request is counted by this node's own counters at once, with no
 * waiting on a queue or a reconnect, and the outage is reported once, not per request.
 */
export function redisRateLimiter(limit: number, url: string, onError: (err: Error) => void): RateLimiter {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // Keep reconnecting in the background, at most every 5 s.
    retryStrategy: (times) => Math.min(times * 200, 5000),
  });
  let down = false;
  const reportDown = (err: Error) => {
    if (down) return;
    down = true;
    onError(new Error(`Redis unavailable, rate limits are counted per node until it is back: ${err.message}`));
  };
  redis.on('error', reportDown);
  redis.on('ready', () => (down = false));
  const fallback = memoryRateLimiter(limit);
  return {
    async hit(key) {
      if (redis.status !== 'ready') return fallback.hit(key);
      const window = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS;
      const redisKey = `postline:rl:${key}:${window}`;
      try {
        const result = await redis
          .multi()
          .incr(redisKey)
          .pexpire(redisKey, WINDOW_MS * 2)
          .exec();
        const [err, count] = result?.[0] ?? [new Error('empty reply to MULTI')];
        if (err) throw err;
        down = false;
        return decide(limit, Number(count), window);
      } catch (err) {
        reportDown(err as Error);
        return fallback.hit(key);
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
