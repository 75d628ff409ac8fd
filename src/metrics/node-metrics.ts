// Metrics as one node runs them (server.ts): recording on, this thread's pool and event loop
// watched, the queue counted on scrape, and /metrics answering with the worker thread's
// figures merged in. The worker thread's side is `recordInWorkerThread`.
import type { MessagePort } from 'node:worker_threads';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { BlocklistListings, QueueDepth, watchThread } from './collectors.js';
import { recordMetrics } from './record.js';
import { metricsRoutes } from './routes.js';
import { answerMetricsRequests, exposition, type ThreadMetrics } from './thread-metrics.js';

export class NodeMetrics {
  private stops: (() => void)[];
  private queue: QueueDepth;
  private blocklists: BlocklistListings;
  private threads: (() => Promise<ThreadMetrics | undefined>)[] = [];

  constructor(db: Db) {
    this.stops = [recordMetrics(), watchThread(db)];
    this.queue = new QueueDepth(db);
    this.blocklists = new BlocklistListings(db);
  }

  /** Another thread of this process whose figures /metrics merges in (worker-thread.ts). */
  addThread(ask: () => Promise<ThreadMetrics | undefined>): void {
    this.threads.push(ask);
  }

  routes(token: string | undefined): Route[] {
    return metricsRoutes(token, () => this.scrape());
  }

  private async scrape(): Promise<{ contentType: string; text: string }> {
    const [others] = await Promise.all([Promise.all(this.threads.map((ask) => ask())), this.queue.sample(), this.blocklists.sample()]);
    return exposition(others);
  }

  stop(): void {
    for (const stop of this.stops) stop();
    this.stops = [];
  }
}

/** In the worker thread of a node that serves metrics: records, watches its pool and loop, answers on `port`. */
export function recordInWorkerThread(db: Db, port: MessagePort): () => void {
  const stops = [recordMetrics(), watchThread(db)];
  answerMetricsRequests(port);
  return () => {
    for (const stop of stops) stop();
  };
}
