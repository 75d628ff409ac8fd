// The webhook dispatcher (part of the `worker` role). It owns getting every recorded event
// to the endpoints subscribed to it, signed, retried, and logged. Two loops that never wait
// on each other, so a slow endpoint can hold up neither the fan-out nor other endpoints:
//
//  - fan-out (fan-out.ts): every FAN_OUT_POLL_MS, or at once while batches come back full,
//    turns new events into messages, one per subscribed endpoint, atomically with moving
//    the shared cursor. It wakes the claim loop when it made messages.
//  - claim (claim.ts): takes due messages (first attempts, retries, replays) under a lease,
//    per endpoint about a second of work judged by its latency (limits.ts), and hands each
//    to an attempt (send-webhook.ts) that runs under the concurrency limits; outcomes.ts
//    records the results in batches. It claims again when woken by the fan-out, by an
//    endpoint draining to half its depth, or every CLAIM_POLL_MS for retries coming due.
//
// Any number of nodes may run it on one database: the cursor row serialises the fan-out,
// SKIP LOCKED and leases split the attempts, and a node that dies leaves its messages to
// come due when their lease ends. Delivery is at least once: receivers dedupe by svix-id.
//
// Shutdown (stop): both loops stop; attempts in flight get STOP_TIMEOUT_MS to finish and be
// recorded, then are aborted; messages claimed but not started, and aborted ones, are made
// due again at once for another node (no attempt is logged for them).
import { setMaxListeners } from 'node:events';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { DestinationPolicy } from '../egress/destination-policy.js';
import type { Logger } from '../logger.js';
import { webhookAttempted } from '../metrics/record.js';
import { claimDue, releaseClaims, type ClaimedMessage } from './claim.js';
import { fanOut } from './fan-out.js';
import { EndpointLimits } from './limits.js';
import { OutcomeWriter } from './outcomes.js';
import { purgeWebhookLog } from './purge.js';
import { sendWebhook, type AttemptResult } from './send-webhook.js';

const FAN_OUT_POLL_MS = 25;
const FAN_OUT_BATCH = 1000;
const CLAIM_POLL_MS = 100;
const ERROR_BACKOFF_MS = 1_000;
const STOP_TIMEOUT_MS = 5_000;
const PURGE_EVERY_MS = 10 * 60_000;
/** Messages claimed and not yet recorded, in all (a few MB). */
const MAX_IN_HAND = 5_000;
/** A claimed message waits about a second in hand; the lease covers far worse. */
const LEASE_BASE_MS = 5 * 60_000;

interface DispatcherOptions {
  db: Db;
  config: Config;
  /** Where endpoints may connect to (POSTLINE_WEBHOOK_ALLOW_PRIVATE). */
  destinations: DestinationPolicy;
  logger: Logger;
  /** This node's id (cluster/node-presence.ts), written on its claims. */
  nodeId?: string;
}

export class WebhookDispatcher {
  private running = false;
  private loops: Promise<void>[] = [];
  private fanOutWaker = new Waker();
  private claimWaker = new Waker();
  private inFlight = new Set<Promise<void>>();
  private inHand = 0;
  private limits: EndpointLimits;
  private writer: OutcomeWriter;
  private stopping = new AbortController();
  private leaseMs: number;
  /** 0: the first loop purges, as housekeeping does at start, so a node restarted more often than PURGE_EVERY_MS still purges. */
  private lastPurge = 0;
  private purging = false;

  constructor(private options: DispatcherOptions) {
    const { config } = options;
    // Every attempt in flight listens for the shutdown: as many listeners as the concurrency allows.
    setMaxListeners(config.webhookConcurrency + 1, this.stopping.signal);
    this.limits = new EndpointLimits(config.webhookConcurrency, config.webhookConcurrencyPerEndpoint, () => this.claimWaker.wake());
    this.writer = new OutcomeWriter(options.db, { delaysMs: config.webhookRetryDelaysMs, disableAfterMs: config.webhookDisableAfterMs }, options.logger);
    // A message whose lease runs short before its attempt starts is given back (run()).
    this.leaseMs = LEASE_BASE_MS + 2 * config.webhookTimeoutMs;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = [this.fanOutLoop(), this.claimLoop()];
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.fanOutWaker.wake();
    this.claimWaker.wake();
    await Promise.all(this.loops);
    const settled = Promise.allSettled([...this.inFlight]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS)));
    if ((await Promise.race([settled, timedOut])) === 'timeout') {
      this.options.logger.warn({ attempts: this.inFlight.size }, 'webhook attempts still running at shutdown: aborting them');
      this.stopping.abort();
      await settled;
    }
    clearTimeout(timer);
    await this.writer.idle();
  }

  private async fanOutLoop(): Promise<void> {
    const { db, logger } = this.options;
    while (this.running) {
      try {
        const result = await fanOut(db, FAN_OUT_BATCH);
        if (result.messages > 0) this.claimWaker.wake();
        this.maybePurge();
        if (result.events < FAN_OUT_BATCH) await this.fanOutWaker.sleep(FAN_OUT_POLL_MS);
      } catch (err) {
        if (!this.running) break;
        logger.error({ err }, 'webhook fan-out failed');
        await this.fanOutWaker.sleep(ERROR_BACKOFF_MS);
      }
    }
  }

  private async claimLoop(): Promise<void> {
    const { db, logger } = this.options;
    while (this.running) {
      const room = MAX_IN_HAND - this.inHand;
      if (room < MAX_IN_HAND / 2) {
        await this.claimWaker.sleep(CLAIM_POLL_MS);
        continue;
      }
      try {
        const messages = await claimDue(db, {
          limit: room,
          leaseMs: this.leaseMs,
          rooms: this.limits.rooms(),
          firstRoom: this.limits.firstRoom,
          nodeId: this.options.nodeId,
        });
        for (const message of messages) this.dispatch(message);
        if (messages.length < room) await this.claimWaker.sleep(CLAIM_POLL_MS);
      } catch (err) {
        if (!this.running) break;
        logger.error({ err }, 'claiming webhook messages failed');
        await this.claimWaker.sleep(ERROR_BACKOFF_MS);
      }
    }
  }

  private dispatch(message: ClaimedMessage): void {
    this.inHand++;
    const run = this.run(message).finally(() => {
      this.inHand--;
      this.inFlight.delete(run);
      // Claim again once there is room for a good batch, not after every attempt.
      if (this.inHand === MAX_IN_HAND / 2) this.claimWaker.wake();
    });
    this.inFlight.add(run);
  }

  private async run(message: ClaimedMessage): Promise<void> {
    const { db, config, logger } = this.options;
    try {
      // The endpoint's slot is held for the HTTP exchange only, not while the result commits.
      const release = await this.limits.acquire(message.webhookId);
      let result: AttemptResult | undefined;
      try {
        const leaseLeft = message.leaseUntil.getTime() - Date.now();
        if (!this.running || leaseLeft < config.webhookTimeoutMs + 10_000) result = undefined;
        else {
          result = await sendWebhook(message, { timeoutMs: config.webhookTimeoutMs, destinations: this.options.destinations, stop: this.stopping.signal });
          this.limits.observe(message.webhookId, result.latencyMs);
        }
      } finally {
        release();
      }
      if (!result || result.interrupted) await releaseClaims(db, [message]);
      else {
        await this.writer.record(result);
        webhookAttempted(result.ok, message.eventCreatedAt);
      }
    } catch (err) {
      // The message keeps its lease and is tried again when it runs out.
      logger.error({ err, message: message.id }, 'webhook attempt failed');
    }
  }

  /** Housekeeping on whichever node gets there; deleting twice is harmless. */
  private maybePurge(): void {
    if (this.purging || Date.now() - this.lastPurge < PURGE_EVERY_MS) return;
    this.purging = true;
    this.lastPurge = Date.now();
    purgeWebhookLog(this.options.db, this.options.config.webhookLogRetentionDays)
      .catch((err) => this.options.logger.warn({ err }, 'webhook log purge failed'))
      .finally(() => (this.purging = false));
  }
}

/** A sleep that `wake` cuts short; a wake while awake makes the next sleep return at once. */
class Waker {
  private pending = false;
  private resolve: (() => void) | undefined;

  sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        this.resolve = undefined;
        resolve();
      };
      timer = setTimeout(done, ms);
      this.resolve = done;
    });
  }

  wake(): void {
    if (this.resolve) this.resolve();
    else this.pending = true;
  }
}
