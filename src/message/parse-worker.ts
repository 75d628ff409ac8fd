// The worker thread of parse-message.ts: parses large messages off the event loop.
import { parentPort } from 'node:worker_threads';
import { parseInProcess, transferablesOf, UnparseableMessage, type ParseKind } from './parse-message.js';

parentPort!.on('message', ({ id, raw, kind }: { id: number; raw: Uint8Array; kind: ParseKind }) => {
  parseInProcess(raw, kind).then(
    (result) => parentPort!.postMessage({ id, result }, transferablesOf(result)),
    (err: Error) => {
      if (!(err instanceof UnparseableMessage)) throw err; // the worker fails: every waiting message gets a 4xx
      parentPort!.postMessage({ id, error: err.message });
    },
  );
});
