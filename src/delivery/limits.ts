// Concurrency limits of the delivery worker: SMTP sessions in total
// (POSTLINE_DELIVERY_CONCURRENCY) and per destination (its shaping limits: a provider's, or
// POSTLINE_DELIVERY_CONCURRENCY_PER_HOST for an MX host of no known provider).
// The destination slot is taken before the global one, so work queued behind a busy host
// never holds a global slot that another host's mail could use.
import { Semaphore } from '../concurrency/semaphore.js';

export class DeliveryLimits {
  private total: Semaphore;
  private perHost = new Map<string, Semaphore>();

  constructor(total: number) {
    this.total = new Semaphore(total);
  }

  /** Waits for one of `max` slots for `destination`; call the returned function exactly once to free it. */
  async acquire(destination: string, max: number): Promise<() => void> {
    let host = this.perHost.get(destination);
    if (!host) this.perHost.set(destination, (host = new Semaphore(max)));
    await host.acquire();
    await this.total.acquire();
    return () => {
      this.total.release();
      host.release();
      if (host.idle) this.perHost.delete(destination);
    };
  }
}
