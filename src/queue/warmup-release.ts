// A raised cap takes effect at once: when a domain's warm-up changes through the API (a new
// schedule, or the warm-up turned off), the mail that waits for its next day (warmup/warmup-gate.ts)
// is made due now instead of tomorrow. The gate then lets through what the new cap allows and
// holds the rest again, so a lower cap loses nothing either.
//
// Waiting rows are found by their due time: the gate gives them back due exactly when the next
// day begins (broadcasts BROADCAST_LAG_MS later), a time nothing else in the queue picks.
import type { Queryable } from '../db/database.js';
import { BROADCAST_LAG_MS } from '../warmup/warmup-gate.js';
import { dayStart, warmupDay } from '../warmup/schedule.js';

/** Makes due the unclaimed mail of domain `domainId` (warming up since `startedAt`) that waits for its next day; how many rows. */
export async function releaseWaitingForNextDay(q: Queryable, accountId: string, domainId: string, startedAt: Date, now = Date.now()): Promise<number> {
  const nextDay = dayStart(startedAt, warmupDay(startedAt, now) + 1).getTime();
  const rows = await q.query(
    `UPDATE deliveries d SET next_attempt_at = now(), updated_at = now()
       FROM emails e
      WHERE e.id = d.email_id AND e.domain_id = $2 AND d.account_id = $1 AND d.status = 'queued' AND d.claimed_by IS NULL
        AND d.next_attempt_at = ANY($3::timestamptz[])
  RETURNING d.id`,
    [accountId, domainId, [new Date(nextDay), new Date(nextDay + BROADCAST_LAG_MS)]],
  );
  return rows.length;
}
