// Recording attempts: the delivery log row, the message's new state and the endpoint's
// health, in one transaction per batch (group commit: whatever finishes while one batch
// commits goes into the next), each statement taking all rows at once (unnest).
//
// Retries follow POSTLINE_WEBHOOK_RETRY_DELAYS (Resend's: immediately, then 5 s, 5 min,
// 30 min, 2 h, 5 h, 10 h, 10 h), each counted from the failure before it; after the last
// the message is failed. A replay (retry = false) gets its one attempt only.
// The message is written only while we still hold its lease (claim.ts); the log row and the
// endpoint's health are written regardless, since the attempt did happen.
//
// An endpoint's `failing_since` is the time of its first failure since its last success.
// When a failure finds it older than POSTLINE_WEBHOOK_DISABLE_AFTER, the endpoint is
// disabled: no more events are fanned out to it and its messages wait until it is enabled.
import crypto from 'node:crypto';
import type { Db, Queryable } from '../db/database.js';
import type { Logger } from '../logger.js';
import type { AttemptResult } from './send-webhook.js';

interface RetryPolicy {
  delaysMs: number[];
  disableAfterMs: number;
}

interface Planned {
  result: AttemptResult;
  status: 'success' | 'attempting' | 'failed';
  /** Next attempt after this long; null when the message is finished. */
  delayMs: number | null;
}

function plan(result: AttemptResult, policy: RetryPolicy): Planned {
  if (result.ok) return { result, status: 'success', delayMs: null };
  const attempts = result.message.attempts + 1;
  if (!result.message.retry || attempts > policy.delaysMs.length) return { result, status: 'failed', delayMs: null };
  return { result, status: 'attempting', delayMs: policy.delaysMs[attempts - 1]! };
}

/** Per endpoint in a batch: healthy if its latest attempt succeeded, else since when it fails. */
function health(rows: Planned[]): { ids: string[]; healthy: boolean[]; resets: boolean[]; since: (Date | null)[] } {
  // reset: a success in this batch, so failing_since restarts at the first failure after it.
  const byEndpoint = new Map<string, { healthy: boolean; reset: boolean; since: Date | null }>();
  const ordered = [...rows].sort((a, b) => a.result.sentAt.getTime() - b.result.sentAt.getTime());
  for (const { result } of ordered) {
    const h = byEndpoint.get(result.message.webhookId) ?? { healthy: true, reset: false, since: null };
    if (result.ok) Object.assign(h, { healthy: true, reset: true, since: null });
    else if (h.healthy) Object.assign(h, { healthy: false, since: result.sentAt });
    byEndpoint.set(result.message.webhookId, h);
  }
  const ids = [...byEndpoint.keys()].sort();
  return {
    ids,
    healthy: ids.map((id) => byEndpoint.get(id)!.healthy),
    resets: ids.map((id) => byEndpoint.get(id)!.reset),
    since: ids.map((id) => byEndpoint.get(id)!.since),
  };
}

async function write(q: Queryable, rows: Planned[], policy: RetryPolicy): Promise<string[]> {
  await q.query(
    `INSERT INTO webhook_attempts (id, message_id, webhook_id, status_code, latency_ms, response, created_at)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::int[], $5::int[], $6::text[], $7::timestamptz[])`,
    [
      rows.map(() => crypto.randomUUID()),
      rows.map((r) => r.result.message.id),
      rows.map((r) => r.result.message.webhookId),
      rows.map((r) => r.result.statusCode),
      rows.map((r) => r.result.latencyMs),
      rows.map((r) => r.result.response),
      rows.map((r) => r.result.sentAt),
    ],
  );
  await q.query(
    `UPDATE webhook_messages m
        SET status = v.status, attempts = m.attempts + 1, claimed_by = NULL,
            next_attempt_at = CASE WHEN v.delay_ms IS NULL THEN NULL ELSE now() + v.delay_ms * interval '1 millisecond' END
       FROM unnest($1::text[], $2::text[], $3::float8[], $4::timestamptz[]) AS v(id, status, delay_ms, lease)
      WHERE m.id = v.id AND m.next_attempt_at = v.lease`,
    [rows.map((r) => r.result.message.id), rows.map((r) => r.status), rows.map((r) => r.delayMs), rows.map((r) => r.result.message.leaseUntil)],
  );
  // Only endpoints whose failing_since changes are written: a healthy endpoint costs no write.
  const h = health(rows);
  await q.query(
    `UPDATE webhooks w
        SET failing_since = CASE WHEN v.healthy THEN NULL WHEN v.reset THEN v.since ELSE COALESCE(w.failing_since, v.since) END
       FROM unnest($1::uuid[], $2::bool[], $3::bool[], $4::timestamptz[]) AS v(id, healthy, reset, since)
      WHERE w.id = v.id
        AND CASE WHEN v.healthy THEN w.failing_since IS NOT NULL ELSE v.reset OR w.failing_since IS NULL END`,
    [h.ids, h.healthy, h.resets, h.since],
  );
  const failing = h.ids.filter((_, i) => !h.healthy[i]);
  if (failing.length === 0) return [];
  const disabled = await q.query<{ id: string }>(
    `UPDATE webhooks SET status = 'disabled'
      WHERE id = ANY($1::uuid[]) AND status = 'enabled' AND failing_since <= now() - $2 * interval '1 millisecond'
  RETURNING id`,
    [failing, policy.disableAfterMs],
  );
  return disabled.map((r) => r.id);
}

const MAX_BATCH = 1000;
const RETRYABLE = new Set(['40P01', '40001']); // deadlock, serialization failure

export class OutcomeWriter {
  private pending: { result: AttemptResult; done: (err?: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private db: Db,
    private policy: RetryPolicy,
    private logger: Logger,
  ) {}

  /** Resolves once the attempt is committed (or rejects: the message then falls out of its lease). */
  record(result: AttemptResult): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ result, done: (err) => (err ? reject(err) : resolve()) });
      this.kick();
    });
  }

  /** Waits until everything handed to `record` so far is written. */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private kick(): void {
    if (this.flushing) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = undefined;
      if (this.pending.length > 0) this.kick();
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, MAX_BATCH);
      const rows = batch.map((b) => plan(b.result, this.policy));
      try {
        const disabled = await this.writeWithRetry(rows);
        for (const id of disabled) {
          this.logger.warn({ webhook: id }, 'webhook endpoint disabled: every attempt failed for POSTLINE_WEBHOOK_DISABLE_AFTER');
        }
        for (const b of batch) b.done();
      } catch (err) {
        this.logger.error({ err, attempts: rows.length }, 'writing webhook attempts failed');
        for (const b of batch) b.done(err);
      }
    }
  }

  private async writeWithRetry(rows: Planned[]): Promise<string[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.tx((q) => write(q, rows, this.policy));
      } catch (err) {
        if (attempt >= 3 || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
      }
    }
  }
}
