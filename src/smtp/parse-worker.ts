// The worker thread of parse-message.ts: parses large submitted messages off the event loop.
import { parentPort } from 'node:worker_threads';
import { parseInProcess, UnparseableMessage } from './parse-message.js';

parentPort!.on('message', ({ id, raw }: { id: number; raw: Uint8Array }) => {
  parseInProcess(raw).then(
    (result) => parentPort!.postMessage({ id, result }),
    (err: Error) => {
      if (!(err instanceof UnparseableMessage)) throw err; // the worker fails: every waiting message gets a 4xx
      parentPort!.postMessage({ id, error: err.message });
    },
  );
});
