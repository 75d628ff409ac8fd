// Recording what happened to each recipient: the queue row's new state, the attempt itself
// (delivery_attempts), the email's events (through recordEvents, the one event writer) and the
// email's last_event, in one transaction, so webhooks never see an event whose state change
// was lost or the reverse.
//
// Results are written in batches: the worker hands each finished attempt to `record`, and
// whatever piles up while one transaction commits goes into the next (group commit). Every
// statement takes all rows at once (unnest), so a batch costs the same few round trips
// whether it holds one recipient or thousands.
//
// A row is written only while we still hold its lease (next_attempt_at = the lease we set,
// claim.ts); events are built only for the rows that update touched. A database that is away is
// waited for while the lease lasts (retryOnConnectionLoss): a lost outcome would mean mail sent twice.
import { type Db, type Queryable, retryOnConnectionLoss } from '../db/database.js';
import type { OutboundEvent } from '../events/payloads.js';
import { outboundEvent, recordEvents, type NewEvent, type SentMessage } from '../events/record-events.js';
import type { Logger } from '../logger.js';
import { recordDestinationReplies } from '../queue/destination-replies.js';
import { suppressAfterOutcomes } from '../suppressions/suppress-on-outcome.js';
import type { Bounce } from './bounce-codes.js';
import type { ClaimedDelivery, ClaimedEmail } from '../queue/claim.js';
import { decideRetry, type RetryPolicy } from './retry-policy.js';
import { type Settlement, settleAttempts } from '../queue/settle.js';

export interface Suppression {
  type: 'OnAccountSuppressionList' | 'Suppressed';
  reason: 'previous_bounce' | 'previous_complaint';
  message: string;
  diagnosticCode: string[];
}

/** What one attempt concluded for one recipient; `response` becomes last_response. */
export type Verdict =
  | { kind: 'delivered'; response: string }
  /** Delivered, then reported as spam (the complained@resend.dev test address). */
  | { kind: 'complained'; response: string }
  | { kind: 'deferred'; response: string }
  /** Never to be tried again, whatever the recipient's server would say (the message cannot be composed). */
  | { kind: 'failed'; response: string; reason: string }
  | { kind: 'bounced'; response: string; bounce: Bounce }
  | { kind: 'suppressed'; response: string; suppressed: Suppression };

export interface Outcome {
  delivery: ClaimedDelivery;
  verdict: Verdict;
  /** The MX host (or relay) the attempt reached or tried first; absent when it never got that far. */
  mx?: string;
  /** The session's TLS protocol (null: plain text) and the requirement it met (tls-policy/requirement.ts); absent without a session. */
  tls?: { protocol: string | null; requirement: string };
}

/** An outcome as written: the update of its deliveries row (queue/settle.ts) and its events. */
interface PlannedOutcome {
  outcome: Outcome;
  status: Settlement['status'];
  /** Retry after this long; null keeps next_attempt_at (a final state). */
  delayMs: number | null;
  events: OutboundEvent[];
}

/** The row update and events one outcome makes. Retry or give up is decided here. */
function plan(outcome: Outcome, policy: RetryPolicy, now: number): PlannedOutcome {
  const v = outcome.verdict;
  switch (v.kind) {
    case 'delivered':
      return { outcome, status: 'delivered', delayMs: null, events: [{ type: 'email.delivered', extra: {} }] };
    case 'complained':
      return {
        outcome,
        status: 'delivered',
        delayMs: null,
        events: [
          { type: 'email.delivered', extra: {} },
          { type: 'email.complained', extra: {} },
        ],
      };
    case 'bounced':
      return { outcome, status: 'bounced', delayMs: null, events: [{ type: 'email.bounced', extra: { bounce: v.bounce } }] };
    case 'failed':
      return { outcome, status: 'failed', delayMs: null, events: [{ type: 'email.failed', extra: { failed: { reason: v.reason } } }] };
    case 'suppressed':
      return { outcome, status: 'suppressed', delayMs: null, events: [{ type: 'email.suppressed', extra: { suppressed: v.suppressed } }] };
    case 'deferred': {
      const decision = decideRetry(policy, outcome.delivery.attempts + 1, outcome.delivery.email.queuedSince, now);
      // The reply goes with the event, so a timeline or a webhook says why (a TLS policy not met, a full mailbox).
      if (decision.retry) {
        return {
          outcome,
          status: 'queued',
          delayMs: decision.delayMs,
          events: [{ type: 'email.delivery_delayed', extra: { delay: { response: v.response } } }],
        };
      }
      return {
        outcome,
        status: 'failed',
        delayMs: null,
        events: [{ type: 'email.failed', extra: { failed: { reason: decision.reason, response: v.response } } }],
      };
    }
  }
}

/**
 * One event per (email, type, payload): recipients of one email with the same outcome share
 * an event whose `to` lists them, as Resend's payloads do. Order is kept, so an email's last
 * event here is the last one that happened.
 */
function eventsOf(rows: PlannedOutcome[]): NewEvent[] {
  const grouped = new Map<string, { email: ClaimedEmail; event: OutboundEvent; to: string[] }>();
  for (const row of rows) {
    const email = row.outcome.delivery.email;
    for (const event of row.events) {
      const key = `${email.id} ${event.type} ${JSON.stringify(event.extra)}`;
      const group = grouped.get(key);
      if (group) group.to.push(row.outcome.delivery.recipient);
      else grouped.set(key, { email, event, to: [row.outcome.delivery.recipient] });
    }
  }
  return [...grouped.values()].map((g) =>
    outboundEvent(
      g.email.accountId,
      {
        id: g.email.id,
        created_at: g.email.createdAt,
        from_address: g.email.fromAddress,
        subject: g.email.subject,
        message_id: g.email.messageId,
        tags: g.email.tags,
        broadcast_id: g.email.broadcastId,
        template_id: g.email.templateId,
      },
      g.to,
      g.event,
    ),
  );
}

async function write(q: Queryable, rows: PlannedOutcome[]): Promise<void> {
  // Lock the emails first, in id order: two nodes writing outcomes of the same emails then
  // queue up instead of deadlocking on the last_event update (recordEvents).
  const emailIds = [...new Set(rows.map((r) => r.outcome.delivery.email.id))].sort();
  await q.query(`SELECT id FROM emails WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`, [emailIds]);

  const held = await settleAttempts(
    q,
    rows.map((r) => ({
      id: r.outcome.delivery.id,
      status: r.status,
      delayMs: r.delayMs,
      response: r.outcome.verdict.response,
      leaseUntil: r.outcome.delivery.leaseUntil,
      mx: r.outcome.mx ?? null,
    })),
  );
  const written = rows.filter((r) => held.has(r.outcome.delivery.id));
  await recordAttempts(q, written);
  // Messages composed for this attempt (compose at delivery, worker.ts) are stored with the
  // events, so a retry sends the same bytes.
  await recordEvents(q, eventsOf(written), sentMessages(written));
  await recordDestinationReplies(
    q,
    written.map(({ outcome: { delivery, verdict, mx } }) => ({
      accountId: delivery.email.accountId,
      domain: delivery.domain,
      mx: mx ?? null,
      reply: verdict.response,
    })),
  );
  // Hard bounces and complaints put the address on the account's suppression list, with the outcome.
  await suppressAfterOutcomes(
    q,
    written.map((r) => r.outcome),
  );
}

/**
 * Every attempt, kept (deliveries hold only the last one): GET /emails/:id/attempts reads them.
 * One statement for the whole batch, on the hot path like the rest of `write`.
 */
async function recordAttempts(q: Queryable, written: PlannedOutcome[]): Promise<void> {
  if (written.length === 0) return;
  await q.query(
    `INSERT INTO delivery_attempts (email_id, delivery_id, recipient, mx, response, outcome, tls_protocol, tls_requirement)
     SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`,
    [
      written.map((r) => r.outcome.delivery.email.id),
      written.map((r) => r.outcome.delivery.id),
      written.map((r) => r.outcome.delivery.recipient),
      written.map((r) => r.outcome.mx ?? null),
      written.map((r) => r.outcome.verdict.response),
      written.map((r) => r.outcome.verdict.kind),
      written.map((r) => r.outcome.tls?.protocol ?? null),
      written.map((r) => r.outcome.tls?.requirement ?? null),
    ],
  );
}

/** The messages among `written` that this attempt composed (or signed), one per email. */
function sentMessages(written: PlannedOutcome[]): SentMessage[] {
  const sent = new Map<string, SentMessage>();
  for (const r of written) {
    const email = r.outcome.delivery.email;
    if (email.composed && email.mime) sent.set(email.id, { emailId: email.id, mime: email.mime, text: email.composed.text });
  }
  return [...sent.values()];
}

const MAX_BATCH = 2000;
const RETRYABLE = new Set(['40P01', '40001']); // deadlock, serialization failure

export class OutcomeWriter {
  private pending: { outcomes: Outcome[]; done: (err?: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;
  private giveUpAt = Number.POSITIVE_INFINITY;

  constructor(
    private db: Db,
    private policy: RetryPolicy,
    private logger: Logger,
  ) {}

  /** Resolves once the outcomes are committed (or rejects; the rows then fall out of their lease). */
  record(outcomes: Outcome[]): Promise<void> {
    if (outcomes.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.pending.push({ outcomes, done: (err) => (err ? reject(err) : resolve()) });
      this.kick();
    });
  }

  private kick(): void {
    if (this.flushing) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = undefined;
      if (this.pending.length > 0) this.kick(); // arrived between the last check and now
    });
  }

  /** Waits until everything handed to `record` so far is written. */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch: typeof this.pending = [];
      let size = 0;
      while (this.pending.length > 0 && (size === 0 || size + this.pending[0]!.outcomes.length <= MAX_BATCH)) {
        const next = this.pending.shift()!;
        batch.push(next);
        size += next.outcomes.length;
      }
      const now = Date.now();
      const rows = batch.flatMap((b) => b.outcomes.map((o) => plan(o, this.policy, now)));
      try {
        await this.writeWithRetry(rows);
        for (const b of batch) b.done();
      } catch (err) {
        const emails = [...new Set(rows.map((r) => r.outcome.delivery.email.id))];
        this.logger.error({ err, emails, recipients: rows.length }, 'writing delivery outcomes failed');
        for (const b of batch) b.done(err);
      }
    }
  }

  /**
   * Stops waiting for an unreachable database within `ms`: at shutdown, outcomes not written by
   * then are left to their rows' lease.
   */
  giveUpWithin(ms: number): void {
    this.giveUpAt = Date.now() + ms;
  }

  /**
   * Writes the batch, through deadlocks and through a database that is away: an outcome not
   * written means mail sent again, so it is retried while the rows' lease lasts (after it ends, the
   * write is fenced off: another attempt may own them).
   */
  private writeWithRetry(rows: PlannedOutcome[]): Promise<void> {
    const leaseEnds = Math.min(...rows.map((r) => r.outcome.delivery.leaseUntil.getTime()));
    return retryOnConnectionLoss(
      () => this.writeThroughDeadlocks(rows),
      () => Math.min(leaseEnds, this.giveUpAt),
      (err) => this.logger.warn({ err, recipients: rows.length }, 'the database is unreachable; delivery outcomes are written once it is back'),
    );
  }

  private async writeThroughDeadlocks(rows: PlannedOutcome[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.tx((q) => write(q, rows));
      } catch (err) {
        if (attempt >= 3 || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
      }
    }
  }
}
