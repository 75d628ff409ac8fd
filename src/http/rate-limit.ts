// Per-account request rate limit, IETF draft-ietf-httpapi-ratelimit-headers style headers on
// every response. A fixed one-second window: in-process by default, shared by all nodes
// through Redis when REDIS_URL is set.
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

export function redisRateLimiter(limit: number, url: string, onError: (err: Error) => void): RateLimiter {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
  redis.on('error', onError);
  const fallback = memoryRateLimiter(limit);
  return {
    async hit(key) {
      const window = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS;
      const redisKey = `postline:rl:${key}:${window}`;
      try {
        const result = await redis.multi().incr(redisKey).pexpire(redisKey, WINDOW_MS * 2).exec();
        const count = Number(result?.[0]?.[1] ?? 1);
        return decide(limit, count, window);
      } catch (err) {
        // Redis down: keep serving with this node's own counters rather than failing requests.
        onError(err as Error);
        return fallback.hit(key);
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
