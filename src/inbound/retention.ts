// Retention of received mail (POSTLINE_RECEIVED_RETENTION, unset: kept until the operator
// says otherwise): messages older than that are deleted by the worker's housekeeping
// (src/server.ts), each with its received emails and their attachment lists (ON DELETE
// CASCADE, 0011_inbound.sql). A bounded batch per statement, so a large backlog never holds
// long locks. The email.received events stay with the webhook log, which has its own retention.
import type { Db } from '../db/database.js';

const BATCH = 500;

/** Deletes received messages older than `retentionMs`; returns how many. */
export async function purgeReceivedMail(db: Db, retentionMs: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.query(
      `DELETE FROM inbound_messages WHERE id IN (
         SELECT id FROM inbound_messages WHERE created_at < now() - $1 * interval '1 millisecond' LIMIT ${BATCH})
       RETURNING 1`,
      [retentionMs],
    );
    total += deleted.length;
    if (deleted.length < BATCH) return total;
  }
}
