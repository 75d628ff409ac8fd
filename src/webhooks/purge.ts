// Retention of the delivery log: finished messages and attempts older than
// POSTLINE_WEBHOOK_LOG_RETENTION_DAYS are deleted, a bounded batch per statement so that a
// large backlog never holds long locks. Messages still being retried are kept.
import type { Db } from '../db/database.js';

const BATCH = 5_000;

export async function purgeWebhookLog(db: Db, days: number): Promise<void> {
  const statements = [
    `DELETE FROM webhook_attempts WHERE id IN (
       SELECT id FROM webhook_attempts WHERE created_at < now() - $1 * interval '1 day' LIMIT ${BATCH})`,
    `DELETE FROM webhook_messages WHERE id IN (
       SELECT id FROM webhook_messages WHERE created_at < now() - $1 * interval '1 day'
          AND status IN ('success', 'failed') LIMIT ${BATCH})`,
  ];
  for (const sql of statements) {
    for (;;) {
      const deleted = await db.query(`${sql} RETURNING 1`, [days]);
      if (deleted.length < BATCH) break;
    }
  }
}
