// The queue's state changes that the rest of Postline asks for by name, each the one statement
// that writes `deliveries` for it (states: delivery-status.ts). The delivery worker's own
// transitions (claim, the outcomes of an attempt) are in claim.ts and settle.ts, enqueueing at
// accept in enqueue.ts, pauses in pauses.ts, warm-up releases in warmup-release.ts and an
// operator's repairs in repair.ts; nothing else in src/ writes the table
// (test/architecture.test.ts).
import type { Queryable } from '../db/database.js';

/** A scheduled email canceled: its deliveries end `canceled`. */
export async function cancelScheduled(q: Queryable, emailId: string): Promise<void> {
  await q.query(`UPDATE deliveries SET status = 'canceled', updated_at = now() WHERE email_id = $1 AND status = 'scheduled'`, [emailId]);
}

/** A scheduled email moved to `at`: its deliveries wait until then. */
export async function reschedule(q: Queryable, emailId: string, at: Date): Promise<void> {
  await q.query(`UPDATE deliveries SET next_attempt_at = $2, updated_at = now() WHERE email_id = $1 AND status = 'scheduled'`, [emailId, at]);
}

/** Scheduled emails whose time has come: their deliveries queued, due now. */
export async function releaseScheduled(q: Queryable, emailIds: string[]): Promise<void> {
  await q.query(
    `UPDATE deliveries SET status = 'queued', next_attempt_at = now(), updated_at = now()
      WHERE email_id = ANY($1::uuid[]) AND status = 'scheduled'`,
    [emailIds],
  );
}

/** Recipients on the suppression list when their email was accepted: never tried, `suppressed` with the reply that says why. */
export async function suppressAtAccept(q: Queryable, rows: { emailId: string; recipient: string; response: string }[]): Promise<void> {
  await q.query(
    `UPDATE deliveries d SET status = 'suppressed', last_response = v.response, updated_at = now()
       FROM unnest($1::uuid[], $2::text[], $3::text[]) AS v(email_id, recipient, response)
      WHERE d.email_id = v.email_id AND d.recipient = v.recipient`,
    [rows.map((r) => r.emailId), rows.map((r) => r.recipient), rows.map((r) => r.response)],
  );
}

/** Deliveries a bounce report received later shows bounced (inbound/record-reports.ts), with the reported reply. */
export async function bounceReported(q: Queryable, rows: { id: number | string; response: string }[]): Promise<void> {
  await q.query(
    `UPDATE deliveries d SET status = 'bounced', last_response = v.response, updated_at = now()
       FROM unnest($1::bigint[], $2::text[]) AS v(id, response) WHERE d.id = v.id`,
    [rows.map((r) => r.id), rows.map((r) => r.response)],
  );
}
