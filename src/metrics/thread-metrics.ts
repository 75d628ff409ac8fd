// The worker thread's figures in its process's /metrics. The thread (worker-thread-main.ts)
// keeps its own registry; on each scrape the main thread asks it over the thread's message
// channel for its metrics as JSON and merges them with its own through prom-client's
// AggregatorRegistry (counters and histograms summed, gauges by their aggregator). The ask is
// time-boxed: a thread that is busy, stuck or restarting costs a scrape its figures, never
// the scrape itself.
import type { MessagePort, Worker } from 'node:worker_threads';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import { sampleThread } from './collectors.js';
import { registry } from './definitions.js';

export type ThreadMetrics = MetricObjectWithValues<MetricValue<string>>[];

type Request = { type: 'metrics'; id: number };
type Answer = { type: 'metrics'; id: number; metrics: ThreadMetrics };

/** How long a scrape waits for the worker thread's figures. */
const ASK_TIMEOUT_MS = 1_000;
let nextId = 0;

/** This thread's metrics, its scrape-time gauges sampled first. */
async function ownMetrics(): Promise<ThreadMetrics> {
  sampleThread();
  return registry.getMetricsAsJSON();
}

/** In the worker thread: answers the main thread's requests for metrics on `port`. */
export function answerMetricsRequests(port: MessagePort): void {
  port.on('message', (message: Partial<Request>) => {
    if (message.type !== 'metrics' || message.id === undefined) return;
    const { id } = message;
    void ownMetrics().then((metrics) => port.postMessage({ type: 'metrics', id, metrics } satisfies Answer));
  });
}

/** In the main thread: the worker thread's metrics, or undefined when it has not answered within ASK_TIMEOUT_MS. */
export function askThread(worker: Worker): Promise<ThreadMetrics | undefined> {
  const id = nextId++;
  return new Promise((resolve) => {
    const done = (metrics: ThreadMetrics | undefined) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      resolve(metrics);
    };
    const onMessage = (message: Answer) => {
      if (message?.type === 'metrics' && message.id === id) done(message.metrics);
    };
    const timer = setTimeout(() => done(undefined), ASK_TIMEOUT_MS);
    worker.on('message', onMessage);
    worker.postMessage({ type: 'metrics', id } satisfies Request);
  });
}

/** The Prometheus text of this thread's metrics merged with the other threads' (those that answered). */
export async function exposition(others: (ThreadMetrics | undefined)[]): Promise<{ contentType: string; text: string }> {
  const all = [await ownMetrics(), ...others.filter((m): m is ThreadMetrics => m !== undefined)];
  const merged = AggregatorRegistry.aggregate(all);
  return { contentType: merged.contentType, text: await merged.metrics() };
}
