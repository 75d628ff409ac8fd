// Concurrency and claiming room per endpoint.
//
// Attempts: at most POSTLINE_WEBHOOK_CONCURRENCY_PER_ENDPOINT at once to one endpoint and
// POSTLINE_WEBHOOK_CONCURRENCY in total. The endpoint's slot is taken before a global one,
// so messages queued behind a slow endpoint never hold a global slot that another endpoint
// could use; a dead endpoint ties up at most its own share, for at most the timeout.
//
// Claiming: a node holds about QUEUE_TARGET_MS of work per endpoint, judged from the
// endpoint's recent latency: thousands of messages for a fast receiver, so that one claim
// feeds it for a while, and no more than its concurrency for one that times out, so that a
// dead endpoint's backlog stays in the database where other nodes and retries can reach it.
// An endpoint is claimed for again once it is down to half of that.
import { Semaphore } from '../concurrency/semaphore.js';

const QUEUE_TARGET_MS = 1_000;
const MAX_DEPTH = 2_000;
/** Latency assumed for an endpoint not heard from yet. */
const FIRST_GUESS_MS = 100;
const EWMA = 0.2;

export class EndpointLimits {
  private total: Semaphore;
  private perEndpoint = new Map<string, Semaphore>();
  private latencyMs = new Map<string, number>();
  /** Endpoints left out of a claim for having enough in hand: wake the claim when they drain. */
  private full = new Set<string>();

  constructor(
    total: number,
    private maxPerEndpoint: number,
    /** Called when an endpoint left out of claims has room again. */
    private onRoom: () => void,
  ) {
    this.total = new Semaphore(total);
  }

  /** Waits for a slot for `endpoint`; call the returned function exactly once to free it. */
  async acquire(endpoint: string): Promise<() => void> {
    let own = this.perEndpoint.get(endpoint);
    if (!own) this.perEndpoint.set(endpoint, (own = new Semaphore(this.maxPerEndpoint)));
    await own.acquire();
    await this.total.acquire();
    return () => {
      this.total.release();
      own.release();
      if (own.load === 0) this.perEndpoint.delete(endpoint);
      if (this.full.has(endpoint) && own.load <= this.depth(endpoint) / 2) {
        this.full.delete(endpoint);
        this.onRoom();
      }
    };
  }

  /** An attempt's duration, for the endpoint's claiming depth. */
  observe(endpoint: string, latencyMs: number): void {
    const previous = this.latencyMs.get(endpoint);
    this.latencyMs.set(endpoint, previous === undefined ? latencyMs : previous + EWMA * (latencyMs - previous));
  }

  /** How many messages of `endpoint` this node may hold. */
  depth(endpoint: string): number {
    const latency = Math.max(1, this.latencyMs.get(endpoint) ?? FIRST_GUESS_MS);
    return Math.round(Math.min(MAX_DEPTH, Math.max(this.maxPerEndpoint, (this.maxPerEndpoint * QUEUE_TARGET_MS) / latency)));
  }

  /** Room to claim for an endpoint not in hand here. */
  get firstRoom(): number {
    return Math.round((this.maxPerEndpoint * QUEUE_TARGET_MS) / FIRST_GUESS_MS);
  }

  /**
   * Room to claim for each endpoint in hand here: 0 for those holding more than half their
   * depth (they are remembered, and onRoom fires when they drain).
   */
  rooms(): { endpoints: string[]; rooms: number[] } {
    const endpoints: string[] = [];
    const rooms: number[] = [];
    for (const [endpoint, s] of this.perEndpoint) {
      const depth = this.depth(endpoint);
      const room = s.load > depth / 2 ? 0 : depth - s.load;
      if (room === 0) this.full.add(endpoint);
      endpoints.push(endpoint);
      rooms.push(room);
    }
    return { endpoints, rooms };
  }
}
