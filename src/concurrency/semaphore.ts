// A counting semaphore: at most `max` holders at once, the rest wait in arrival order.
// Used for the delivery worker's SMTP session limits and the webhook dispatcher's limits.
export class Semaphore {
  private waiters: (() => void)[] = [];
  active = 0;

  constructor(private max: number) {}

  async acquire(): Promise<void> {
    if (this.active < this.max) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next)
      next(); // the slot passes straight to the next waiter
    else this.active--;
  }

  /** Running plus waiting. */
  get load(): number {
    return this.active + this.waiters.length;
  }

  get idle(): boolean {
    return this.load === 0;
  }
}
