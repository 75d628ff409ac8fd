// Entry of the worker thread (worker-thread.ts): runs the worker role and stops it on request.
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from './config.js';
import { startPostline } from './server.js';

const port = parentPort!;
const { config } = workerData as { config: Config };

try {
  const postline = await startPostline(config, { roles: ['worker'] });
  port.on('message', (message: { type: string }) => {
    if (message.type !== 'stop') return;
    postline.stop().finally(() => port.postMessage({ type: 'stopped' }));
  });
  port.postMessage({ type: 'started' });
} catch (err) {
  port.postMessage({ type: 'failed', message: (err as Error).stack ?? String(err) });
}
