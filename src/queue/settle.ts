// The outcome of an attempt on each of its deliveries (delivery/outcomes.ts decides it): final,
// or queued again after a delay, the reply and MX host kept. Written only where the claim that
// made the attempt still holds the row (next_attempt_at equals its lease, queue/claim.ts): a
// worker that overran its lease writes nothing over the one that took the rows over.
import type { Queryable } from '../db/database.js';
import type { DeliveryStatus, FinalDeliveryStatus } from './delivery-status.js';

export interface Settlement {
  id: number;
  status: Extract<DeliveryStatus, 'queued'> | Exclude<FinalDeliveryStatus, 'canceled'>;
  /** Due again after this long; null keeps next_attempt_at (a final state). */
  delayMs: number | null;
  response: string;
  /** The claim's lease: the fencing token. */
  leaseUntil: Date;
  mx: string | null;
}

/** Writes the settlements whose claims still hold; answers the ids written. */
export async function settleAttempts(q: Queryable, rows: Settlement[]): Promise<Set<number>> {
  const updated = await q.query<{ id: number }>(
    `UPDATE deliveries d
        SET status = v.status,
            attempts = d.attempts + 1,
            next_attempt_at = CASE WHEN v.delay_ms IS NULL THEN d.next_attempt_at
                                   ELSE now() + v.delay_ms * interval '1 millisecond' END,
            last_response = v.response,
            last_attempt_at = now(),
            last_mx = v.mx,
            claimed_by = NULL,
            updated_at = now()
       FROM unnest($1::bigint[], $2::text[], $3::float8[], $4::text[], $5::timestamptz[], $6::text[])
            AS v(id, status, delay_ms, response, lease, mx)
      WHERE d.id = v.id AND d.status = 'queued' AND d.next_attempt_at = v.lease
  RETURNING d.id`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.status),
      rows.map((r) => r.delayMs),
      rows.map((r) => r.response),
      rows.map((r) => r.leaseUntil),
      rows.map((r) => r.mx),
    ],
  );
  return new Set(updated.map((r) => r.id));
}
