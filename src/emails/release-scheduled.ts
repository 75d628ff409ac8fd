// The releaser (runs with the `worker` role): scheduled emails whose time has come enter the
// delivery queue. In one transaction per batch it turns their deliveries from 'scheduled'
// into 'queued' rows due now and records `email.sent` (which makes last_event 'sent'), so the
// event is written exactly when the email really goes to the queue: a canceled email never
// gets one, a released one always does, and the delivery worker (which claims only 'queued'
// rows) needs no knowledge of scheduling.
//
// Any number of nodes may run it: each locks the emails it releases with SKIP LOCKED, and
// cancel and reschedule lock the same row first, so a release and a cancel never both win.
// Nothing is kept in memory: after a restart (or a node being down at the due time), the next
// tick finds every overdue email and releases it at once.
//
// Coupled with persist-and-enqueue.ts and schedule.ts (which write the waiting rows),
// cancel-email.ts and update-email.ts, and 0007_scheduling.sql (the deliveries_scheduled index).
import type { Db, Queryable } from '../db/database.js';
import { outboundEvent, recordEvents, type EmailForEvent } from '../events/record-events.js';
import { PollingLoop } from '../concurrency/polling-loop.js';
import type { Logger } from '../logger.js';
import { releaseScheduled } from '../queue/transitions.js';

const POLL_MS = 250;
const BATCH = 500;
const ERROR_BACKOFF_MS = 1_000;

/** A scheduled email as released or canceled (cancel-email.ts): what its events need, and its state. */
export interface ScheduledEmailRow extends EmailForEvent {
  account_id: string;
  to_addresses: string[];
  created_at: Date;
  last_event: string;
  broadcast_id: string | null;
  template_id: string | null;
}

/** Releases up to `limit` due emails; returns how many. */
async function releaseDueEmails(db: Db, limit = BATCH): Promise<number> {
  return db.tx(async (q) => {
    const emails = await q.query<ScheduledEmailRow>(
      `SELECT e.id, e.account_id, e.from_address, e.to_addresses, e.subject, e.message_id, e.tags, e.created_at, e.last_event, e.broadcast_id, e.template_id
         FROM emails e
        WHERE e.id IN (SELECT email_id FROM deliveries WHERE status = 'scheduled' AND next_attempt_at <= now()
                        ORDER BY next_attempt_at LIMIT $1)
        ORDER BY e.id
          FOR NO KEY UPDATE SKIP LOCKED`,
      [limit],
    );
    if (emails.length === 0) return 0;
    await release(q, emails);
    return emails.length;
  });
}

async function release(q: Queryable, emails: ScheduledEmailRow[]): Promise<void> {
  await releaseScheduled(
    q,
    emails.map((e) => e.id),
  );
  await recordEvents(
    q,
    emails.map((e) => outboundEvent(e.account_id, e, e.to_addresses, { type: 'email.sent', extra: {} })),
  );
}

export class ScheduledEmailReleaser {
  private loop: PollingLoop;

  constructor(db: Db, logger: Logger, pollMs = POLL_MS) {
    this.loop = new PollingLoop({
      logger,
      failure: 'releasing scheduled emails failed',
      idleMs: pollMs,
      errorBackoffMs: ERROR_BACKOFF_MS,
      turn: async () => (await releaseDueEmails(db)) > 0,
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops polling; a release in progress finishes (its transaction commits or rolls back). */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}
