// POST /emails/:id/cancel: a scheduled email is not sent after all. Its waiting deliveries
// become 'canceled', last_event 'canceled', and `email.canceled` is recorded, in one
// transaction that holds the email's row, so it cannot cross the releaser
// (release-scheduled.ts) queuing the same email. Canceling a canceled email again changes
// nothing and succeeds, so a retried request is safe; any other email has gone to the queue
// already and cannot be called back: 403, as Resend answers for broadcasts (§2.8).
import { notFound, validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { objectId, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { outboundEvent, recordEvents } from '../events/record-events.js';
import { cancelScheduled } from '../queue/transitions.js';
import type { ScheduledEmailRow } from './release-scheduled.js';

export function cancelEmail(db: Db): Route {
  return {
    method: 'POST',
    url: '/emails/:id/cancel',
    doc: { summary: 'Cancel a scheduled email', params: { id: uuid() }, response: { status: 200, schema: objectId('email') } },
    async handler({ principal, params }) {
      const id = params.id!;
      await db.tx(async (q) => {
        const email = await q.one<ScheduledEmailRow>(
          `SELECT id, account_id, from_address, to_addresses, subject, message_id, tags, created_at, last_event, broadcast_id, template_id
             FROM emails WHERE id = $1 AND account_id = $2 FOR NO KEY UPDATE`,
          [id, principal.accountId],
        );
        if (!email) throw notFound('Email');
        if (email.last_event === 'canceled') return;
        if (email.last_event !== 'scheduled') throw validation('Only scheduled emails can be canceled.', 403);
        await cancelScheduled(q, email.id);
        await recordEvents(q, [outboundEvent(email.account_id, email, email.to_addresses, { type: 'email.canceled', extra: {} })]);
      });
      return { body: { object: 'email', id } };
    },
  };
}
