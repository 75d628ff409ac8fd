// Retention of received reports (POSTLINE_REPORT_RETENTION, default 400 days: a year and a
// season to compare): DMARC reports (their rows with them, ON DELETE CASCADE), TLS reports and
// unrecognised report mail received before then are deleted by the worker's housekeeping
// (worker-role.ts), a bounded batch per statement so a backlog never holds long locks; the
// flood limit's hours past go too.
import type { Db } from '../db/database.js';

const BATCH = 500;

async function purge(db: Db, table: string, column: string, key: string, retentionMs: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.query(
      `DELETE FROM ${table} WHERE ${key} IN (
         SELECT ${key} FROM ${table} WHERE ${column} < now() - $1 * interval '1 millisecond' LIMIT ${BATCH})
       RETURNING 1`,
      [retentionMs],
    );
    total += deleted.length;
    if (deleted.length < BATCH) return total;
  }
}

/** Deletes reports received more than `retentionMs` ago; returns how many. */
export async function purgeOldReports(db: Db, retentionMs: number): Promise<number> {
  const counts = await Promise.all([
    purge(db, 'dmarc_reports', 'created_at', 'id', retentionMs),
    purge(db, 'received_tls_reports', 'created_at', 'id', retentionMs),
    purge(db, 'unrecognised_report_mail', 'received_at', 'id', retentionMs),
  ]);
  await db.query(`DELETE FROM report_intake WHERE hour < now() - interval '2 hours'`);
  return counts.reduce((a, b) => a + b, 0);
}
