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

export interface AutomationWorkerOptions {
  db: Db;
  accept: AcceptDeps;
  logger: Logger;
  pollMs?: number;
}

export class AutomationWorker {
  private running = false;
  private loopDone: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(private options: AutomationWorkerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearTimeout(this.timer);
    this.wake?.();
    await this.loopDone;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let worked = 0;
      try {
        worked += await ingestEvents(this.options.db);
        worked += await this.runDueSteps();
      } catch (err) {
        if (!this.running) break;
        this.options.logger.error({ err }, 'automation worker turn failed');
        await this.sleep(ERROR_BACKOFF_MS);
        continue;
      }
      if (worked === 0) await this.sleep(this.options.pollMs ?? POLL_MS);
    }
  }

  private async runDueSteps(): Promise<number> {
    const { db, accept, logger } = this.options;
    const steps = await claimDueSteps(db, STEPS_PER_TURN, LEASE_MS);
    await Promise.all(
      steps.map((step) =>
        executeStep({ db, accept }, step).catch((err) =>
          logger.error({ err, run: step.runId, step: step.key }, 'automation step failed; retried after its lease'),
        ),
      ),
    );
    return steps.length;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }
}
