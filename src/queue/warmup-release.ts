// Mail held by warm-up (warmup/warmup-gate.ts, warmup/ip-warmup.ts) is given back due at its
// next day, and the first time an email is held, that is said: one email.delivery_delayed with
// the reason in `delay.response`, for the recipients held then; later holds of the same email
// (the next day full too, a re-check after a settings change) record nothing more.
//
// A raised cap takes effect at once: when a domain's warm-up changes through the API (a new
// schedule, or the warm-up turned off), the mail that waits for its next day (warmup/warmup-gate.ts)
// is made due now instead of tomorrow. The gate then lets through what the new cap allows and
// holds the rest again, so a lower cap loses nothing either.
//
// Waiting rows are found by their due time: the gate gives them back due exactly when the next
// day begins (broadcasts BROADCAST_LAG_MS later), a time nothing else in the queue picks.
import type { Db, Queryable } from '../db/database.js';
import { outboundEvent, recordEvents } from '../events/record-events.js';
import { BROADCAST_LAG_MS, WARMUP_HOLD_PREFIX } from '../warmup/warmup-gate.js';
import { dayStart, warmupDay } from '../warmup/schedule.js';
import { type ClaimedDelivery, type ClaimedEmail, deliveryLeases } from './claim.js';

/**
 * Gives back claimed rows a warm-up holds, due at `wait.until` with its reason as the last
 * response of a row that has none yet (as releaseClaims), and records email.delivery_delayed
 * for the emails held for the first time. The emails are locked first, in id order, as the
 * outcome writer does: two holds of one email never both take it for its first.
 */
export async function holdForWarmup(db: Db, rows: ClaimedDelivery[], wait: { until: Date; reason: string }): Promise<void> {
  if (rows.length === 0) return;
  await db.tx(async (q) => {
    const emailIds = [...new Set(rows.map((r) => r.email.id))].sort();
    await q.query('SELECT id FROM emails WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE', [emailIds]);
    const held = await deliveryLeases.settle<{ id: number }>(
      q,
      rows.map((r) => ({ key: r.id, token: r.leaseUntil })),
      {
        set: 'next_attempt_at = $3::timestamptz, last_response = coalesce(t.last_response, $4), updated_at = now()',
        where: "t.status = 'queued'",
        params: [wait.until, wait.reason],
        returning: 't.id',
      },
    );
    if (held.length === 0) return;
    const before = await q.query<{ email_id: string }>(
      `SELECT DISTINCT email_id FROM events
        WHERE email_id = ANY($1::uuid[]) AND type = 'email.delivery_delayed' AND data->'delay'->>'response' LIKE $2`,
      [emailIds, `${WARMUP_HOLD_PREFIX}%`],
    );
    const heldIds = new Set(held.map((r) => Number(r.id)));
    const heldBefore = new Set(before.map((r) => r.email_id));
    const first = new Map<string, { email: ClaimedEmail; to: string[] }>();
    for (const r of rows) {
      if (!heldIds.has(Number(r.id)) || heldBefore.has(r.email.id)) continue;
      const entry = first.get(r.email.id) ?? { email: r.email, to: [] };
      entry.to.push(r.recipient);
      first.set(r.email.id, entry);
    }
    await recordEvents(
      q,
      [...first.values()].map(({ email, to }) =>
        outboundEvent(
          email.accountId,
          {
            id: email.id,
            created_at: email.createdAt,
            from_address: email.fromAddress,
            subject: email.subject,
            message_id: email.messageId,
            tags: email.tags,
            broadcast_id: email.broadcastId,
            template_id: email.templateId,
          },
          to,
          { type: 'email.delivery_delayed', extra: { delay: { response: wait.reason } } },
        ),
      ),
    );
  });
}

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
