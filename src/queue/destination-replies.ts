// The last reply an account's mail got at each recipient domain (`destination_replies`),
// written in the delivery outcomes' transaction: one row per destination however many
// recipients a batch holds, so the queue's summary reads the last reply of 10,000
// destinations without looking at their messages.
import type { Queryable } from '../db/database.js';

interface AttemptReply {
  accountId: string;
  domain: string;
  mx: string | null;
  reply: string;
}

/**
 * Records the latest of `replies` per (account, domain). Rows are written in key order, so
 * two batches sharing destinations wait for each other instead of deadlocking.
 */
export async function recordDestinationReplies(q: Queryable, replies: AttemptReply[]): Promise<void> {
  if (replies.length === 0) return;
  const latest = new Map<string, AttemptReply>();
  for (const r of replies) latest.set(`${r.accountId} ${r.domain}`, r);
  const rows = [...latest.values()].sort((a, b) => (a.accountId === b.accountId ? (a.domain < b.domain ? -1 : 1) : a.accountId < b.accountId ? -1 : 1));
  await q.query(
    `INSERT INTO destination_replies AS r (account_id, domain, mx, reply, attempted_at)
     SELECT v.account_id, v.domain, v.mx, v.reply, now()
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS v(account_id, domain, mx, reply)
     ON CONFLICT (account_id, domain) DO UPDATE
        SET mx = coalesce(EXCLUDED.mx, r.mx), reply = EXCLUDED.reply, attempted_at = EXCLUDED.attempted_at`,
    [rows.map((r) => r.accountId), rows.map((r) => r.domain), rows.map((r) => r.mx), rows.map((r) => r.reply)],
  );
}
