// The worker role in a thread of its own. A node that serves the API or SMTP and also delivers
// would otherwise accept, compose, sign and deliver on one event loop, i.e. on one core; in a
// thread, delivery, webhooks, imports, automations and housekeeping get their own event loop,
// database pool and core, while the light queueing parts (scheduled releases, broadcast
// fan-out) stay on the main loop (worker-role.ts, WorkerShare). The thread runs the worker
// role's code against the same database, exactly as a separate worker node would (the queue
// is shared through PostgreSQL, never through memory), so nothing about correctness depends on it.
//
// A thread that dies unexpectedly is started again after a pause; its claimed queue rows
// fall back into the queue when their leases expire, as a crashed node's would.
import { Worker } from 'node:worker_threads';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import { askThread, type ThreadMetrics } from './metrics/thread-metrics.js';
import type { WorkerShare } from './worker-role.js';

interface WorkerThread {
  /** Whether the thread is up (false between a crash and its restart). */
  running(): boolean;
  /** Asks the thread to stop as a worker node stops (finishing in-flight attempts) and waits. */
  stop(): Promise<void>;
  /** The thread's metrics (config.metrics), for /metrics to merge; undefined while it is down or when it does not answer in time. */
  metrics(): Promise<ThreadMetrics | undefined>;
}

type FromThread = { type: 'started' } | { type: 'failed'; message: string } | { type: 'stopped' };

const RESTART_DELAY_MS = 1000;

function spawn(config: Config, share: WorkerShare): Worker {
  // The build runs worker-thread-main.js; from source (tests, `npm run dev`) the .ts file, loaded
  // through tsx's API (a devDependency): loader hooks are not inherited by worker threads.
  const entry = new URL(`./worker-thread-main.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return new Worker(entry, { workerData: { config, share } });
  return new Worker(`import('tsx/esm/api').then((tsx) => tsx.tsImport(${JSON.stringify(entry.href)}, ${JSON.stringify(import.meta.url)}))`, {
    eval: true,
    workerData: { config, share },
  });
}

/** Starts the thread; resolves once its worker role is running (rejects if it cannot start). */
export async function startWorkerThread(config: Config, logger: Logger, share: WorkerShare = 'all'): Promise<WorkerThread> {
  let stopping = false;
  let current: Worker;
  let alive = false;
  let restartTimer: NodeJS.Timeout | undefined;

  const launch = () =>
    new Promise<void>((resolve, reject) => {
      const worker = spawn(config, share);
      current = worker;
      alive = true;
      worker.on('message', (message: FromThread) => {
        if (message.type === 'started') resolve();
        if (message.type === 'failed') reject(new Error(`worker thread: ${message.message}`));
      });
      worker.on('error', (err) => {
        logger.error({ err }, 'worker thread failed');
        reject(err);
      });
      worker.on('exit', (code) => {
        alive = false;
        reject(new Error(`worker thread exited (${code}) before it started`));
        if (stopping || current !== worker) return;
        logger.error(`worker thread exited (${code}); starting it again in ${RESTART_DELAY_MS} ms`);
        restartTimer = setTimeout(() => {
          launch().catch((err) => logger.error({ err }, 'worker thread restart failed'));
        }, RESTART_DELAY_MS);
      });
    });

  await launch();
  logger.info('worker role running in its own thread');
  return {
    running: () => alive && !stopping,
    metrics: async () => (alive && !stopping ? askThread(current) : undefined),
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const worker = current;
      if (!alive) return;
      await new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.on('message', (message: FromThread) => {
          if (message.type === 'stopped') void worker.terminate();
        });
        worker.postMessage({ type: 'stop' });
      });
    },
  };
}
