// Concurrency limits of the delivery worker: SMTP sessions in total
// (POSTLINE_DELIVERY_CONCURRENCY) and per destination (POSTLINE_DELIVERY_CONCURRENCY_PER_HOST).
// The destination slot is taken before the global one, so work queued behind a busy host
// never holds a global slot that another host's mail could use.
import { Semaphore } from '../concurrency/semaphore.js';

export class DeliveryLimits {
  private total: Semaphore;
  private perHost = new Map<string, Semaphore>();

  constructor(
    total: number,
    private maxPerHost: number,
  ) {
    this.total = new Semaphore(total);
  }

  /** Waits for a slot for `destination`; call the returned function exactly once to free it. */
  async acquire(destination: string): Promise<() => void> {
    let host = this.perHost.get(destination);
    if (!host) this.perHost.set(destination, (host = new Semaphore(this.maxPerHost)));
    await host.acquire();
    await this.total.acquire();
    return () => {
      this.total.release();
      host.release();
      if (host.idle) this.perHost.delete(destination);
    };
  }
}
