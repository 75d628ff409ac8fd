// Steering the queue: try again now, or give up (the operator's decision, or the max queue
// age reached in whatever state the mail waits). Only rows no worker holds are touched: an
// attempt in flight decides its rows itself, and its outcome is written only while its lease
// stands (delivery/outcomes.ts).
import type { Db, Queryable } from '../db/database.js';
import { outboundEvent, recordEvents, type EmailForEvent } from '../events/record-events.js';
import { unfinishedSql } from './states.js';

/** Which deliveries: one email's, or one account's at some domains. */
export type Selection = { accountId: string; emailId: string } | { accountId: string; domains: string[] };

function selectionSql(selection: Selection, params: unknown[]): string {
  params.push(selection.accountId);
  const account = `d.account_id = $${params.length}`;
  if ('emailId' in selection) {
    params.push(selection.emailId);
    return `${account} AND d.email_id = $${params.length}`;
  }
  params.push(selection.domains);
  return `${account} AND d.domain = ANY($${params.length}::text[])`;
}

/** Makes the selected deferred rows due now; returns how many. */
export async function retryNow(q: Queryable, selection: Selection): Promise<number> {
  const params: unknown[] = [];
  const rows = await q.query(
    `UPDATE deliveries d SET next_attempt_at = now(), updated_at = now()
      WHERE ${selectionSql(selection, params)}
        AND d.status = 'queued' AND d.claimed_by IS NULL AND d.next_attempt_at > now()
  RETURNING d.id`,
    params,
  );
  return rows.length;
}

const FAIL_BATCH = 1000;

/** Fails the selected rows that are not final and not in flight, with `email.failed` giving `reason`; returns how many. */
export function failDeliveries(db: Db, selection: Selection, reason: string): Promise<number> {
  const params: unknown[] = [];
  return failWhere(db, selectionSql(selection, params), params, reason);
}

/**
 * Fails every waiting delivery older than the max queue age, in any state (due, deferred,
 * scheduled but never released, paused), counting from when the email entered the queue:
 * accepted, or the time it was scheduled for. In-flight rows are left to their attempt, whose
 * retry decision applies the same age (delivery/retry-policy.ts).
 */
export function failExpired(db: Db, maxQueueAgeMs: number, onBatch?: (emailIds: string[]) => void): Promise<number> {
  return failWhere(
    db,
    // d.created_at is when the row was written with its email, so it prunes without the join.
    `d.created_at < now() - $1 * interval '1 millisecond' AND coalesce(e.scheduled_at, e.created_at) < now() - $1 * interval '1 millisecond'`,
    [maxQueueAgeMs],
    'max_queue_age_exceeded',
    onBatch,
  );
}

/**
 * Fails, batch by batch, the unfinished unclaimed rows where `where` holds (over `d`, the
 * delivery, and `e`, its email), handing each committed batch's email ids to `onBatch`. Emails are locked first, in id order and skipping those
 * another writer holds, as the outcome writer does, so the two never deadlock.
 */
async function failWhere(db: Db, where: string, params: unknown[], reason: string, onBatch?: (emailIds: string[]) => void): Promise<number> {
  const candidates = `d.claimed_by IS NULL AND ${unfinishedSql('d')} AND ${where}`;
  let total = 0;
  for (;;) {
    const failed = await db.tx(async (q) => {
      const emails = await q.query<EmailForEvent & { account_id: string }>(
        `SELECT e.id, e.account_id, e.from_address, e.subject, e.message_id, e.tags, e.created_at, e.broadcast_id, e.template_id
           FROM emails e
          WHERE e.id IN (SELECT d.email_id FROM deliveries d JOIN emails e ON e.id = d.email_id WHERE ${candidates} LIMIT ${FAIL_BATCH})
          ORDER BY e.id
            FOR NO KEY UPDATE SKIP LOCKED`,
        params,
      );
      if (emails.length === 0) return { count: 0, emails: [] };
      const idsAt = params.length + 1;
      const rows = await q.query<{ email_id: string; recipient: string; last_response: string | null }>(
        `UPDATE deliveries d SET status = 'failed', paused_by = NULL, updated_at = now()
           FROM emails e
          WHERE e.id = d.email_id AND d.email_id = ANY($${idsAt}::uuid[]) AND ${candidates}
      RETURNING d.email_id, d.recipient, d.last_response`,
        [...params, emails.map((e) => e.id)],
      );
      // One event per email and last reply: the reply says why it never went (a TLS policy not met, a full mailbox).
      const groups = new Map<string, { emailId: string; response: string | null; recipients: string[] }>();
      for (const r of rows) {
        const key = `${r.email_id} ${r.last_response ?? ''}`;
        const group = groups.get(key) ?? { emailId: r.email_id, response: r.last_response, recipients: [] };
        group.recipients.push(r.recipient);
        groups.set(key, group);
      }
      const emailById = new Map(emails.map((e) => [e.id, e]));
      await recordEvents(
        q,
        [...groups.values()].map(({ emailId, response, recipients }) => {
          const e = emailById.get(emailId)!;
          return outboundEvent(e.account_id, e, recipients, { type: 'email.failed', extra: { failed: { reason, ...(response && { response }) } } });
        }),
      );
      return { count: rows.length, emails: [...new Set(rows.map((r) => r.email_id))] };
    });
    if (failed.count > 0) onBatch?.(failed.emails);
    total += failed.count;
    if (failed.count === 0) return total;
  }
}
