// The automation worker (part of the `worker` role). It owns moving runs forward, and keeps
// nothing in memory that matters: every run and step lives in the database, so a delay of
// three days or a wait for an event survives any restart and fires once.
//
// Each turn of its loop:
//   1. ingest-events.ts: sent events start runs and wake the steps waiting for them;
//   2. claim-steps.ts: due steps are claimed under a lease (SKIP LOCKED, so any number of
//      nodes share the work) and executed concurrently (execute-step.ts), each outcome
//      written with its claim token (advance.ts).
// It turns again at once while there was work, else after POLL_MS.
//
// Shutdown (stop): the loop ends after its current turn; steps in execution finish and are
// recorded. Nothing is lost if the process dies instead: unrecorded claims come due again
// when their lease runs out, and nothing of theirs was committed.
import { PollingLoop } from '../concurrency/polling-loop.js';
import type { Db } from '../db/database.js';
import type { AcceptDeps } from '../emails/accept.js';
import type { Logger } from '../logger.js';
import { claimDueSteps } from './claim-steps.js';
import { executeStep } from './execute-step.js';
import { ingestEvents } from './ingest-events.js';

const POLL_MS = 200;
const ERROR_BACKOFF_MS = 1_000;
const STEPS_PER_TURN = 20;
/** Far longer than any step takes (a send_email composes and commits one email). */
const LEASE_MS = 2 * 60_000;

interface AutomationWorkerOptions {
  db: Db;
  accept: AcceptDeps;
  logger: Logger;
  pollMs?: number;
  /** This node's id (cluster/node-presence.ts), written on its claims. */
  nodeId?: string;
}

export class AutomationWorker {
  private loop: PollingLoop;

  constructor(private options: AutomationWorkerOptions) {
    this.loop = new PollingLoop({
      logger: options.logger,
      failure: 'automation worker turn failed',
      idleMs: options.pollMs ?? POLL_MS,
      errorBackoffMs: ERROR_BACKOFF_MS,
      turn: async () => (await ingestEvents(options.db)) + (await this.runDueSteps()) > 0,
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async runDueSteps(): Promise<number> {
    const { db, accept, logger } = this.options;
    const steps = await claimDueSteps(db, STEPS_PER_TURN, LEASE_MS, this.options.nodeId);
    await Promise.all(
      steps.map((step) =>
        executeStep({ db, accept }, step).catch((err) =>
          logger.error({ err, run: step.runId, step: step.key }, 'automation step failed; retried after its lease'),
        ),
      ),
    );
    return steps.length;
  }
}
