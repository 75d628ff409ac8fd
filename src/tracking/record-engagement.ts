// Recording an open or a click: the `email.opened` / `email.clicked` event (through
// recordEvents, the one event writer) and the email's last_event, in one transaction.
// Every open and every click is recorded, repeated ones included, as Resend does: consumers
// that want unique counts dedupe on the email id.
import type { Db } from '../db/database.js';
import { emailEventData, lastEventOf, recordEvents } from '../events/record-events.js';

type Engagement = { type: 'email.opened'; extra: Record<string, never> } | { type: 'email.clicked'; extra: { click: ClickData } };

/** Resend's `click` object (resend-compat-notes §7.2), camelCase as on the wire. */
interface ClickData {
  ipAddress: string;
  link: string;
  timestamp: string;
  userAgent: string;
}

/** Records the engagement; false when the email no longer exists. */
export function recordEngagement(db: Db, emailId: string, engagement: Engagement): Promise<boolean> {
  return db.tx(async (q) => {
    const email = await q.one(
      `UPDATE emails SET last_event = $2 WHERE id = $1
       RETURNING id, account_id, from_address, to_addresses, subject, message_id, tags, created_at, broadcast_id, template_id`,
      [emailId, lastEventOf(engagement.type)],
    );
    if (!email) return false;
    await recordEvents(q, [
      {
        accountId: email.account_id,
        type: engagement.type,
        emailId,
        data: emailEventData(email as Parameters<typeof emailEventData>[0], email.to_addresses, engagement.extra),
      },
    ]);
    return true;
  });
}

/** Whether the email still exists (a HEAD request is answered as its GET would be, without recording). */
export async function emailExists(db: Db, emailId: string): Promise<boolean> {
  return (await db.one('SELECT 1 FROM emails WHERE id = $1', [emailId])) !== undefined;
}
