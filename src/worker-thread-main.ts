// Entry of the worker thread (worker-thread.ts): runs the worker role on the parent's database
// and stops it on request. It loads only what the role needs (no HTTP or SMTP server), so the
// thread starts quickly; migrations and the bootstrap key are the parent's business.
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from './config.js';
import { connectDatabase } from './db/connect.js';
import { createLogger } from './logger.js';
import { recordInWorkerThread } from './metrics/node-metrics.js';
import { startStandaloneWorkerRole, type WorkerShare } from './worker-role.js';
import { installSecretBox } from './secrets/keyring.js';
import { loadSecretBox } from './secrets/secret-key.js';

const port = parentPort!;
const { config, share } = workerData as { config: Config; share: WorkerShare };
const logger = createLogger(config.logLevel, config.logFormat).child({ role: 'worker' });

try {
  installSecretBox(loadSecretBox(config)); // the parent checked it against the database
  const database = await connectDatabase(config, (msg) => logger.info(msg), { migrate: false });
  // The parent serves /metrics (config.metrics as it passed it): record here, and answer its asks.
  const stopMetrics = config.metrics ? recordInWorkerThread(database.db, port) : () => {};
  const stopRole = startStandaloneWorkerRole(database.db, config, logger, share);
  port.on('message', (message: { type: string }) => {
    if (message.type !== 'stop') return;
    stopRole()
      .then(() => stopMetrics())
      .then(() => database.close())
      .catch((err) => logger.error({ err }, 'worker thread stop failed'))
      .finally(() => port.postMessage({ type: 'stopped' }));
  });
  port.postMessage({ type: 'started' });
} catch (err) {
  port.postMessage({ type: 'failed', message: (err as Error).stack ?? String(err) });
}
