// A background loop of the worker role, for work kept in the database (scheduled emails,
// broadcasts, automation steps, contact imports): `turn` runs again at once while it finds
// work and after `idleMs` when it found none. A failing turn is logged and the next one waits
// `errorBackoffMs`. stop() ends the loop after the turn in progress, whose transaction commits
// or rolls back as it would anyway; sleeps are cut short.
import type { Logger } from '../logger.js';

interface PollingLoopOptions {
  logger: Logger;
  /** What a failed turn is logged as ("releasing scheduled emails failed"). */
  failure: string;
  idleMs: number;
  errorBackoffMs: number;
  /** One unit of work; resolves true when it found some (so the next turn runs at once). */
  turn(): Promise<boolean>;
}

export class PollingLoop {
  private active = false;
  private done: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(private options: PollingLoopOptions) {}

  /** False once stop() was called: long turns check it to end early. */
  get running(): boolean {
    return this.active;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    if (!this.active) return;
    this.active = false;
    clearTimeout(this.timer);
    this.wake?.();
    await this.done;
  }

  /** Waits `ms`, or less if the loop is stopped meanwhile. */
  sleep(ms: number): Promise<void> {
    if (!this.active) return Promise.resolve();
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }

  private async loop(): Promise<void> {
    const { logger, failure, idleMs, errorBackoffMs, turn } = this.options;
    while (this.active) {
      let worked: boolean;
      try {
        worked = await turn();
      } catch (err) {
        if (!this.active) break;
        logger.error({ err }, failure);
        await this.sleep(errorBackoffMs);
        continue;
      }
      if (!worked) await this.sleep(idleMs);
    }
  }
}
