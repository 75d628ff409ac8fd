// The fan-out: events (the outbox) → one message per (event, subscribed endpoint).
//
// One statement, so one transaction: lock the cursor row, read the next events after it,
// insert their messages and move the cursor past them. They commit together or not at all,
// so an event is never skipped and never fanned out twice; UNIQUE (webhook_id, event_id)
// guards the second as well. Any number of nodes may run it: whoever holds the cursor row
// fans out, the others find it locked (SKIP LOCKED) and try again at their next poll.
//
// Events are read in (txid, id) order and only below pg_snapshot_xmin, the oldest
// transaction still running (0005_webhooks.sql explains why ids alone are not enough): an
// event becomes visible to the fan-out once every transaction older than its own has ended,
// normally within milliseconds. A transaction left open elsewhere in the cluster holds
// webhooks back until it ends; it cannot make one be lost.
//
// An endpoint receives the events of its account recorded after it was created, of the
// types it subscribes to, while it is enabled.
//
// Each poll first peeks without locking: locking the cursor row gives the statement a
// transaction id, hence a commit record and a WAL flush, which an idle installation polling
// many times a second should not pay.
import type { Db } from '../db/database.js';

// The cursor is read through scalar subqueries so that the events scan is an index range
// scan on events_txid from the cursor on (a join with the CTE would scan from the start).
// Message ids: msg_ + the base64 of a random UUID's 16 bytes without + / = (about 22 chars).
const FAN_OUT_SQL = `
WITH cursor_row AS MATERIALIZED (
  SELECT last_txid, last_id FROM webhook_cursor FOR UPDATE SKIP LOCKED
), batch AS MATERIALIZED (
  SELECT e.id, e.txid, e.account_id, e.type, e.created_at FROM events e
   WHERE (e.txid, e.id) > ((SELECT last_txid FROM cursor_row), (SELECT last_id FROM cursor_row))
     AND e.txid < pg_snapshot_xmin(pg_current_snapshot())
   ORDER BY e.txid, e.id
   LIMIT $1
), inserted AS (
  INSERT INTO webhook_messages (id, webhook_id, account_id, event_id, event_type, next_attempt_at)
  SELECT 'msg_' || translate(encode(uuid_send(gen_random_uuid()), 'base64'), '+/=', ''),
         w.id, w.account_id, b.id, b.type, now()
    FROM batch b JOIN webhooks w ON w.account_id = b.account_id
   WHERE w.status = 'enabled' AND b.type = ANY (w.events) AND w.created_at <= b.created_at
  ON CONFLICT (webhook_id, event_id) DO NOTHING
  RETURNING 1
), last_event AS (
  SELECT txid, id FROM batch ORDER BY txid DESC, id DESC LIMIT 1
), moved AS (
  UPDATE webhook_cursor c SET last_txid = l.txid, last_id = l.id FROM last_event l RETURNING 1
)
SELECT (SELECT count(*) FROM cursor_row)::int AS locked,
       (SELECT count(*) FROM batch)::int AS events,
       (SELECT count(*) FROM inserted)::int AS messages,
       (SELECT count(*) FROM moved)::int AS moved`;

// A scalar subquery with ORDER BY … LIMIT 1 walks events_txid from the cursor. EXISTS (…)
// would not: the planner drops its ORDER BY and LIMIT, guesses a third of the table matches
// and scans it all, on every poll (16 ms at 100,000 events).
const PEEK_SQL = `
SELECT (
  SELECT e.id FROM events e
   WHERE (e.txid, e.id) > ((SELECT last_txid FROM webhook_cursor), (SELECT last_id FROM webhook_cursor))
     AND e.txid < pg_snapshot_xmin(pg_current_snapshot())
   ORDER BY e.txid, e.id
   LIMIT 1
) IS NOT NULL AS pending`;

interface PeekRow {
  pending: boolean;
}

interface FanOutRow {
  locked: number;
  events: number;
  messages: number;
  moved: number;
}

interface FanOutResult {
  /** False when another node holds the cursor. */
  locked: boolean;
  events: number;
  messages: number;
}

export async function fanOut(db: Db, batchSize: number): Promise<FanOutResult> {
  const peek = await db.one<PeekRow>(PEEK_SQL);
  if (!peek?.pending) return { locked: true, events: 0, messages: 0 };
  const row = (await db.one<FanOutRow>(FAN_OUT_SQL, [batchSize]))!;
  return { locked: row.locked > 0, events: row.events, messages: row.messages };
}
