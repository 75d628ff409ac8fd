// The releaser (runs with the `worker` role): scheduled emails whose time has come enter the
// delivery queue. In one transaction per batch it turns their deliveries from 'scheduled'
// into 'queued' rows due now, sets last_event to 'sent' and records `email.sent`, so the
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
import type { Db, Queryable, Row } from '../db/database.js';
import { emailEventData, recordEvents } from '../events/record-events.js';
import type { Logger } from '../logger.js';

const POLL_MS = 250;
const BATCH = 500;
const ERROR_BACKOFF_MS = 1_000;

/** Releases up to `limit` due emails; returns how many. */
export async function releaseDueEmails(db: Db, limit = BATCH): Promise<number> {
  return db.tx(async (q) => {
    const emails = await q.query(
      `SELECT e.id, e.account_id, e.from_address, e.to_addresses, e.subject, e.message_id, e.tags, e.created_at, e.last_event
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

async function release(q: Queryable, emails: Row[]): Promise<void> {
  const ids = emails.map((e) => e.id);
  await q.query(
    `UPDATE deliveries SET status = 'queued', next_attempt_at = now(), updated_at = now()
      WHERE email_id = ANY($1::uuid[]) AND status = 'scheduled'`,
    [ids],
  );
  // An email that other work has already moved on (e.g. a suppression recorded at accept)
  // keeps its last_event; it still leaves the 'scheduled' state it can be canceled in.
  await q.query(`UPDATE emails SET last_event = 'sent' WHERE id = ANY($1::uuid[]) AND last_event = 'scheduled'`, [ids]);
  await recordEvents(
    q,
    emails.map((e) => ({ accountId: e.account_id, type: 'email.sent' as const, emailId: e.id, data: emailEventData(e as Parameters<typeof emailEventData>[0], e.to_addresses) })),
  );
}

export class ScheduledEmailReleaser {
  private running = false;
  private loopDone: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private db: Db,
    private logger: Logger,
    private pollMs = POLL_MS,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Stops polling; a release in progress finishes (its transaction commits or rolls back). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearTimeout(this.timer);
    this.wake?.();
    await this.loopDone;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let released = 0;
      try {
        released = await releaseDueEmails(this.db);
      } catch (err) {
        if (!this.running) break;
        this.logger.error({ err }, 'releasing scheduled emails failed');
        await this.sleep(ERROR_BACKOFF_MS);
        continue;
      }
      if (released === 0) await this.sleep(this.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }
}
