// A receiver's rate limit as mailbox providers keep one: at most `limit` messages accepted over a
// sliding window (a minute in production), and above it 421 4.7.0, a limit the sender is never
// told. For an MX sink's onRecipient (mx-sink.ts); test/delivery/traffic-shaping-convergence.test.ts
// and bench/shaping-convergence.ts use it. It keeps when it accepted and when it refused.
export class SlidingWindowThrottle {
  /** When each message was accepted and each refused, oldest first. */
  readonly accepted: number[] = [];
  readonly refused: number[] = [];
  private inWindow: number[] = [];

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private clock: () => number = Date.now,
  ) {}

  /** The answer to one recipient: undefined accepts it, or the 421 when the window is full. */
  judge(): { code: number; message: string } | undefined {
    const now = this.clock();
    while (this.inWindow.length > 0 && this.inWindow[0]! <= now - this.windowMs) this.inWindow.shift();
    if (this.inWindow.length >= this.limit) {
      this.refused.push(now);
      return { code: 421, message: '4.7.0 Rate limited: too many messages, try again later' };
    }
    this.inWindow.push(now);
    this.accepted.push(now);
    return undefined;
  }

  /** Messages accepted and refused from `from` (inclusive) to `to` (exclusive). */
  between(from: number, to: number): { accepted: number; refused: number } {
    const count = (times: number[]) => times.filter((t) => t >= from && t < to).length;
    return { accepted: count(this.accepted), refused: count(this.refused) };
  }
}
