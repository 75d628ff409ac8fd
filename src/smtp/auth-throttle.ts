// Failed AUTH attempts, per client address: each failure is answered after a delay that
// doubles with the address's recent failures (100 ms, 200 ms, … up to 3 s), so guessing keys
// costs time even across reconnections; a connection is dropped after a few failures
// (on-auth.ts). The total is kept for operators (SmtpServer.stats, and a warning per failure).
interface AuthThrottleOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  /** An address's failures are forgotten this long after its last one. */
  forgetAfterMs: number;
}

const DEFAULTS: AuthThrottleOptions = { baseDelayMs: 100, maxDelayMs: 3000, forgetAfterMs: 15 * 60_000 };
const MAX_TRACKED = 10_000;

export class AuthThrottle {
  /** Failed attempts since start, all addresses. */
  failures = 0;
  private byAddress = new Map<string, { failures: number; last: number }>();
  private options: AuthThrottleOptions;

  constructor(options: Partial<AuthThrottleOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Records a failure from `address`; returns how long to wait before answering it (ms). */
  fail(address: string, now = Date.now()): number {
    this.failures++;
    if (this.byAddress.size >= MAX_TRACKED) this.forgetOld(now);
    const previous = this.byAddress.get(address);
    const recent = previous && now - previous.last < this.options.forgetAfterMs ? previous.failures : 0;
    this.byAddress.set(address, { failures: recent + 1, last: now });
    return Math.min(this.options.baseDelayMs * 2 ** Math.min(recent, 20), this.options.maxDelayMs);
  }

  private forgetOld(now: number): void {
    for (const [address, entry] of this.byAddress) {
      if (now - entry.last >= this.options.forgetAfterMs) this.byAddress.delete(address);
    }
    // Under a flood of distinct addresses, forget the oldest half rather than grow.
    if (this.byAddress.size >= MAX_TRACKED) {
      let drop = this.byAddress.size / 2;
      for (const address of this.byAddress.keys()) {
        if (drop-- <= 0) break;
        this.byAddress.delete(address);
      }
    }
  }
}
