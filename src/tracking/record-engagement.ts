// Recording an open or a click: the `email.opened` / `email.clicked` event (through
// recordEvents, the one event writer) and the email's last_event, in one transaction.
// Every open and every click is recorded, repeated ones included, as Resend does: consumers
// that want unique counts dedupe on the email id.
import type { Db } from '../db/database.js';
import type { OutboundEvent } from '../events/payloads.js';
import { outboundEvent, recordEvents, type EmailForEvent } from '../events/record-events.js';

type Engagement = Extract<OutboundEvent, { type: 'email.opened' | 'email.clicked' }>;

/** The email an engagement is recorded on: what its event needs. */
interface EngagedEmailRow extends EmailForEvent {
  account_id: string;
  to_addresses: string[];
  created_at: Date;
  broadcast_id: string | null;
  template_id: string | null;
}

/** Records the engagement; false when the email no longer exists. */
export function recordEngagement(db: Db, emailId: string, engagement: Engagement): Promise<boolean> {
  return db.tx(async (q) => {
    const email = await q.one<EngagedEmailRow>(
      `SELECT id, account_id, from_address, to_addresses, subject, message_id, tags, created_at, broadcast_id, template_id
         FROM emails WHERE id = $1 FOR NO KEY UPDATE`,
      [emailId],
    );
    if (!email) return false;
    await recordEvents(q, [outboundEvent(email.account_id, email, email.to_addresses, engagement)]);
    return true;
  });
}

/** Whether the email still exists (a HEAD request is answered as its GET would be, without recording). */
export async function emailExists(db: Db, emailId: string): Promise<boolean> {
  return (await db.one('SELECT 1 FROM emails WHERE id = $1', [emailId])) !== undefined;
}
