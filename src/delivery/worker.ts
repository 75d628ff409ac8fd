// The delivery worker, Postline's MTA (the `worker` role). It owns the hand-off of queued mail
// to the recipients' mail servers: it claims due rows of `deliveries` in batches (claim.ts),
// groups them into one SMTP transaction per email and recipient domain, runs each as an
// attempt (attempt.ts) under the concurrency limits (limits.ts) over pooled connections
// (smtp-pool.ts), and hands the verdicts to the outcome writer (outcomes.ts), which records
// state and events together. Any number of workers on any number of nodes share one queue:
// claims never overlap; a worker that dies leaves its rows to other nodes as soon as its node
// stops beating (cluster/node-presence.ts), or, failing that, when their lease ends.
//
// A database that goes away does not strand a live worker's claims: outcomes are written once it
// is back (outcomes.ts), and rows the worker no longer holds in memory (a claim whose commit it
// never heard of, an attempt that failed before sending, a give-back that failed) are given back
// as soon as the database answers again (releaseForgottenClaims).
//
// It polls: right away again while claims come back full, every IDLE_POLL_MS otherwise, so
// newly accepted mail is picked up within a fraction of a second without LISTEN/NOTIFY.
// Claimed work in memory is bounded (rows and message bytes); at the bound it waits for
// attempts to finish before claiming more.
//
// Emails written without their message (composed at delivery: API and broadcast mail) are composed
// and signed by `composeDeferred` as soon as they are claimed, all of a claim together, while
// the rest of the claim is already being attempted; their outcomes store the message.
//
// Shutdown (stop): stop claiming; attempts not yet connected give their rows back at once
// (next_attempt_at = now, for another node); attempts in flight get STOP_TIMEOUT_MS to finish
// and record their outcomes; anything still running after that simply falls out of its lease.
// Idle connections are closed with QUIT.
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { DnsResolver } from '../dns/resolver.js';
import type { Logger } from '../logger.js';
import { ProviderTable } from '../providers/providers.js';
import { ActivePauses, parkPaused, pauseDestination } from '../queue/pauses.js';
import { SandboxCatcher } from '../sandbox/catcher.js';
import { attemptDelivery, type AttemptDeps, type AttemptResult, sendingDomain } from './attempt.js';
import { claimDue, releaseClaims, releaseForgottenClaims, type ClaimedDelivery } from '../queue/claim.js';
import { groupIntoJobs, type DeliveryJob } from './jobs.js';
import { OutcomeCounter } from './count-outcomes.js';
import { DeliveryLimits } from './limits.js';
import { OutboundIps } from './outbound-ips.js';
import { OutcomeWriter, type Verdict } from './outcomes.js';
import { Router } from './route.js';
import { shapingStateOf } from '../metrics/record.js';
import { TrafficShaper } from './shaping.js';
import { publishShapingStates } from '../queue/shaping-states.js';
import { holdForWarmup } from '../queue/warmup-release.js';
import { SmtpPool } from './smtp-pool.js';
import { MtaStsPolicies } from '../tls-policy/mta-sts-cache.js';
import { TransportPolicy } from '../tls-policy/policy.js';
import { TlsReportCounter } from '../tls-policy/tls-report-counts.js';
import { IpWarmupGate } from '../warmup/ip-warmup.js';
import { WarmupGate } from '../warmup/warmup-gate.js';

/** How far a claim pushes next_attempt_at: how long a crashed worker's rows stay hidden if its node's death goes unnoticed. */
const LEASE_MS = 5 * 60_000;
/** An attempt starts only with this much lease left, which covers its longest run (smtp-pool.ts timeouts). */
const MIN_LEASE_LEFT_MS = 3 * 60_000;
const IDLE_POLL_MS = 100;
const ERROR_BACKOFF_MS = 1_000;
const STOP_TIMEOUT_MS = 10_000;
const CLAIM_BATCH = 500;
const CLAIM_MAX_BYTES = 64 * 1024 * 1024;
const IN_FLIGHT_MAX_BYTES = 256 * 1024 * 1024;
const IDLE_CONNECTION_MS = 5_000;
/** A host that refused a connection is skipped this long (at most the first retry delay). */
const HOST_DOWN_MS = 30_000;
/** How often the shaping states move on (recovery) and are published for the queue view and metrics. */
const SHAPING_PUBLISH_MS = 5_000;
/** Messages per connection to an MX host of no known provider, as Postfix's smtp_connection_reuse_count_limit. */
const OTHER_MESSAGES_PER_CONNECTION = 1000;

/** Composes and signs emails by id (src/emails/compose-deferred.ts); an Error for one that never can be. */
type ComposeDeferred = (emailIds: string[]) => Promise<Map<string, { mime: Buffer; text: string | null } | Error>>;

interface WorkerOptions {
  db: Db;
  config: Config;
  resolver: DnsResolver;
  logger: Logger;
  composeDeferred?: ComposeDeferred;
  /** This node's id (cluster/node-presence.ts), written on its claims; null: claims are recovered by their lease only. */
  nodeId?: string;
}

/** What a message still to be composed counts for in the in-flight bytes bound. */
const DEFERRED_SIZE_ESTIMATE = 32 * 1024;

export class DeliveryWorker {
  private running = false;
  private loopDone: Promise<void> | undefined;
  private inFlight = new Set<Promise<void>>();
  private inFlightRows = 0;
  private inFlightBytes = 0;
  private maxInFlightRows: number;
  private waitingForRoom = false;
  private wakeUp: (() => void) | undefined;
  private pool: SmtpPool;
  private writer: OutcomeWriter;
  private deps: AttemptDeps;
  /** POSTLINE_SANDBOX: where every message goes instead of an MX host (sandbox/catcher.ts). */
  private catcher: SandboxCatcher | undefined;
  private counter: OutcomeCounter;
  private providers: ProviderTable;
  readonly shaper: TrafficShaper;
  private shapingTimer: NodeJS.Timeout | undefined;
  /** Sessions under recipients' TLS policies, counted for TLS reports (tls-policy/tls-report-counts.ts). */
  private tlsReports: TlsReportCounter;
  /**
   * Claimed rows this worker holds, by id: until when it must not give them back as forgotten.
   * Infinity while being worked on; the lease's end for rows an attempt may have reached the
   * recipient with but whose outcome could not be written (another try would send them twice).
   */
  private held = new Map<number, number>();
  /** Set when a claim or a write failed: this node's claims may include rows it does not hold. */
  private claimsMayBeForgotten = false;

  constructor(private options: WorkerOptions) {
    const { config } = options;
    const providers = (this.providers = new ProviderTable(config.providers));
    this.shaper = new TrafficShaper(Date.now, config.shapingQuietMs);
    this.counter = new OutcomeCounter(providers);
    this.maxInFlightRows = Math.max(CLAIM_BATCH, config.deliveryConcurrency * 10);
    this.tlsReports = new TlsReportCounter(options.db, options.logger);
    this.pool = new SmtpPool({
      ehloName: config.smtpHostname,
      onTlsChecked: (target, check, addresses) => {
        const { policy } = target.tls;
        if (!policy) return;
        this.tlsReports.session(policy, check.ok ? 'success' : check.failure, { mx: target.host, receivingIp: addresses.remote, sendingIp: addresses.local });
      },
      idleMs: IDLE_CONNECTION_MS,
      downMs: Math.min(HOST_DOWN_MS, config.retryDelaysMs[0]!),
      maxIdle: config.deliveryConcurrency,
    });
    this.writer = new OutcomeWriter(options.db, { delaysMs: config.retryDelaysMs, maxQueueAgeMs: config.maxQueueAgeMs }, options.logger);
    this.deps = {
      router: new Router(options.resolver, config.outboundPort, config.relayUrl),
      transportPolicy: new TransportPolicy(
        options.resolver,
        new MtaStsPolicies(options.db, options.resolver, config.mtaStsCheckMs, options.logger),
        this.tlsReports,
      ),
      pool: this.pool,
      limits: new DeliveryLimits(config.deliveryConcurrency),
      mayStart: (job) => this.running && leaseLeft(job) >= MIN_LEASE_LEFT_MS,
      pauses: new ActivePauses(options.db, providers),
      shaping: {
        shaper: this.shaper,
        providers,
        otherLimits: { connections: config.deliveryConcurrencyPerHost, messagesPerConnection: OTHER_MESSAGES_PER_CONNECTION, messagesPerMinute: null },
        enabled: config.shaping,
      },
      warmup: new WarmupGate(options.db),
      ipWarmup: new IpWarmupGate(options.db, config.outboundIps),
      outboundIps: new OutboundIps(config.outboundIps),
      logger: options.logger,
    };
    if (config.sandbox) this.catcher = new SandboxCatcher(options.db, options.logger.child({ role: 'sandbox' }), config.sandboxReleaseUrl);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
    this.shapingTimer = setInterval(() => void this.publishShaping(), SHAPING_PUBLISH_MS);
    this.shapingTimer.unref();
    this.tlsReports.start();
  }

  /** Moves recovering rates on and shows the states: the node's rows for the queue view, the providers' in metrics. */
  private async publishShaping(): Promise<void> {
    this.shaper.tick();
    const states = this.shaper.states();
    for (const s of states) {
      if (this.providers.has(s.destination)) {
        shapingStateOf(s.destination, s.ratePerMinute, s.throttled);
      }
    }
    if (!this.options.nodeId) return;
    try {
      await publishShapingStates(this.options.db, this.options.nodeId, states);
    } catch (err) {
      this.options.logger.warn({ err }, 'publishing the traffic shaping states failed');
    }
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.shapingTimer);
    this.wakeUp?.();
    this.writer.giveUpWithin(STOP_TIMEOUT_MS);
    await this.loopDone;
    const settled = Promise.allSettled([...this.inFlight]);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS)));
    if ((await Promise.race([settled, timedOut])) === 'timeout') {
      this.options.logger.warn({ attempts: this.inFlight.size }, 'delivery attempts still running at shutdown; their rows fall out of the lease');
    }
    clearTimeout(timer);
    await this.writer.idle();
    await this.tlsReports.stop();
    this.pool.closeAll();
    await this.catcher?.stop();
  }

  private async loop(): Promise<void> {
    if (this.catcher) {
      const { config, resolver } = this.options;
      this.deps.router = new Router(resolver, config.outboundPort, await this.catcher.start());
      this.deps.transportPolicy = undefined; // mail to the catcher never leaves the machine
    }
    while (this.running) {
      if (this.full()) {
        this.waitingForRoom = true;
        while (this.running && this.full()) await this.sleep(IDLE_POLL_MS * 10);
        this.waitingForRoom = false;
        continue;
      }
      const limit = Math.min(CLAIM_BATCH, this.maxInFlightRows - this.inFlightRows);
      try {
        if (this.claimsMayBeForgotten) await this.releaseForgotten();
        const rows = await claimDue(this.options.db, { limit, leaseMs: LEASE_MS, maxBytes: CLAIM_MAX_BYTES, nodeId: this.options.nodeId });
        const composing = this.compose(rows);
        for (const job of groupIntoJobs(rows)) this.dispatch(job, composing);
        if (rows.length < limit) await this.sleep(IDLE_POLL_MS);
      } catch (err) {
        this.claimsMayBeForgotten = true; // the claim may have committed, its answer lost
        if (!this.running) break;
        this.options.logger.error({ err }, 'claiming deliveries failed');
        await this.sleep(ERROR_BACKOFF_MS);
      }
    }
  }

  private async releaseForgotten(): Promise<void> {
    const { nodeId, db, logger } = this.options;
    if (!nodeId) return; // claims carry no node: only their lease recovers them
    const now = Date.now();
    for (const [id, until] of this.held) if (until < now) this.held.delete(id);
    const released = await releaseForgottenClaims(db, nodeId, [...this.held.keys()]);
    this.claimsMayBeForgotten = false;
    if (released > 0) logger.warn({ released }, 'gave back claimed deliveries this worker no longer held');
  }

  /**
   * Whether to hold off claiming. Once at the bound, claiming resumes only when half the rows
   * are done, so claims stay large instead of one row for each attempt that finishes.
   */
  private full(): boolean {
    if (this.inFlightBytes >= IN_FLIGHT_MAX_BYTES) return true;
    return this.waitingForRoom ? this.inFlightRows > this.maxInFlightRows / 2 : this.inFlightRows >= this.maxInFlightRows;
  }

  /**
   * Starts composing the claim's emails that have no message yet; settles when each of them
   * has its message or a reason it has none. Rejects when the composer could not run at all.
   */
  private compose(rows: ClaimedDelivery[]): Promise<Map<string, Error>> | undefined {
    const pending = [...new Set(rows.filter((r) => !r.email.mime).map((r) => r.email))];
    if (pending.length === 0) return undefined;
    const { composeDeferred } = this.options;
    if (!composeDeferred) return Promise.reject(new Error('this worker cannot compose messages'));
    const composing = composeDeferred(pending.map((e) => e.id)).then((results) => {
      const failures = new Map<string, Error>();
      for (const email of pending) {
        const result = results.get(email.id) ?? new Error('not composed');
        if (result instanceof Error) failures.set(email.id, result);
        else {
          email.mime = result.mime;
          email.composed = { text: result.text };
        }
      }
      return failures;
    });
    composing.catch(() => {}); // each job awaits it and records the failure
    return composing;
  }

  private dispatch(job: DeliveryJob, composing: Promise<Map<string, Error>> | undefined): void {
    const rows = job.recipients.length;
    const bytes = job.email.mime?.length ?? DEFERRED_SIZE_ESTIMATE;
    this.inFlightRows += rows;
    this.inFlightBytes += bytes;
    for (const r of job.recipients) this.held.set(r.id, Number.POSITIVE_INFINITY);
    const run = this.run(job, composing).finally(() => {
      this.inFlightRows -= rows;
      this.inFlightBytes -= bytes;
      this.inFlight.delete(run);
      if (this.waitingForRoom && !this.full()) this.wakeUp?.();
    });
    this.inFlight.add(run);
  }

  private async run(job: DeliveryJob, composing: Promise<Map<string, Error>> | undefined): Promise<void> {
    const { db, logger } = this.options;
    let unwritten: ClaimedDelivery[] = [];
    try {
      const notComposed = job.email.mime ? undefined : await this.composed(job, composing);
      if (notComposed) {
        const outcomes = job.recipients.map((delivery) => ({ delivery, verdict: notComposed }));
        await this.writer.record(outcomes);
        this.counter.count(job.domain, outcomes);
        return;
      }
      // Throws only before any message is sent: the rows are then given back (releaseForgotten).
      const result = await attemptDelivery(job, this.deps);
      const written = this.writer.record(result.outcomes).catch((err) => {
        unwritten = result.outcomes.map((o) => o.delivery);
        throw err;
      });
      // All settled before the rows count as no longer held, so none is given back while its outcome is still being written.
      const steps = await Promise.allSettled([
        written,
        releaseClaims(db, result.notTried),
        result.waiting &&
          (result.waiting.warmup ? holdForWarmup(db, result.waiting.rows, result.waiting) : releaseClaims(db, result.waiting.rows, result.waiting)),
        this.park(result.paused),
        result.blocked && this.pauseBlocked(job, result.blocked),
      ]);
      const failed = steps.find((step) => step.status === 'rejected');
      if (failed) throw failed.reason;
      this.counter.count(job.domain, result.outcomes, result.mxHosts);
      if (logger.isLevelEnabled('debug')) {
        const outcomes = result.outcomes.map((o) => [o.delivery.recipient, o.verdict.kind, o.verdict.response]);
        logger.debug({ email: job.email.id, domain: job.domain, outcomes }, 'delivery attempt');
      }
    } catch (err) {
      this.claimsMayBeForgotten = true;
      logger.error({ err, email: job.email.id, domain: job.domain }, 'delivery attempt failed');
    } finally {
      for (const r of job.recipients) this.held.delete(r.id);
      for (const r of unwritten) this.held.set(r.id, r.leaseUntil.getTime());
    }
  }

  /**
   * A destination answered that the sending IP or domain is blocklisted: every message from
   * that sending domain to it would meet the same answer, so that domain's mail to it is paused
   * (queue/pauses.ts), with the reply as the reason, until an operator resumes it. The
   * account's other sending domains keep sending there.
   */
  private async pauseBlocked(job: DeliveryJob, blocked: NonNullable<AttemptResult['blocked']>): Promise<void> {
    const from = sendingDomain(job.email);
    const reason = `Blocked by ${blocked.destination.name} for mail from ${from}: ${blocked.reply}. Paused by Postline for ${from}; resume once the block is lifted.`;
    await pauseDestination(this.options.db, job.email.accountId, blocked.destination, reason, this.providers, from);
    this.options.logger.warn({ email: job.email.id, destination: blocked.destination, reply: blocked.reply }, 'destination blocks the sender: paused');
  }

  /** Parks the rows of a paused destination; gives back those whose pause was lifted meanwhile. */
  private async park(paused: AttemptResult['paused']): Promise<void> {
    if (!paused) return;
    const notParked = new Set(await parkPaused(this.options.db, paused.pause.id, paused.rows));
    await releaseClaims(
      this.options.db,
      paused.rows.filter((r) => notParked.has(r.id)),
    );
  }

  /** Waits for the job's email to be composed; the verdict for its recipients when it was not. */
  private async composed(job: DeliveryJob, composing: Promise<Map<string, Error>> | undefined): Promise<Verdict | undefined> {
    try {
      const error = (await composing)?.get(job.email.id);
      if (!error) return undefined;
      this.options.logger.error({ err: error, email: job.email.id }, 'the message cannot be composed; the email fails');
      return { kind: 'failed', response: `554 5.6.0 The message could not be composed: ${error.message}`, reason: 'message_not_composed' };
    } catch (err) {
      this.options.logger.error({ err, email: job.email.id }, 'composing messages failed; retrying later');
      return { kind: 'deferred', response: '451 4.3.0 The message could not be composed yet' };
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.wakeUp === done) self.wakeUp = undefined;
        resolve();
      }
      this.wakeUp = done;
    });
  }
}

function leaseLeft(job: DeliveryJob): number {
  return Math.min(...job.recipients.map((r) => r.leaseUntil.getTime())) - Date.now();
}
