// Sign-in attempts per client address and per address signed in as: ATTEMPTS a minute each,
// counted in this process (a node's own share; guesses also cost scrypt's time and memory).
const ATTEMPTS = 10;
const WINDOW_MS = 60_000;

export class SignInThrottle {
  private windowStart = 0;
  private counts = new Map<string, number>();

  /** Counts an attempt; the seconds to wait when over the limit, else 0. */
  attempt(ip: string, email: string): number {
    const now = Date.now();
    const current = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    if (current !== this.windowStart) {
      this.windowStart = current;
      this.counts = new Map();
    }
    let over = false;
    for (const key of [`ip:${ip}`, `user:${email}`]) {
      const count = (this.counts.get(key) ?? 0) + 1;
      this.counts.set(key, count);
      if (count > ATTEMPTS) over = true;
    }
    return over ? Math.ceil((current + WINDOW_MS - now) / 1000) : 0;
  }
}
