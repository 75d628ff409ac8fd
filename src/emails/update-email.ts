// PATCH /emails/:id {scheduled_at}: moves a scheduled email to another time (the same rules
// as when sending: ISO 8601 or natural language, in the future, at most 30 days ahead).
// Its waiting deliveries move with it. Only while it is scheduled: once released to the
// queue (or canceled) it is 403, like cancel-email.ts. The email's row is held for the
// transaction, so a reschedule and the releaser never cross.
import { notFound, validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { input, objectId, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { MAX_SCHEDULED_AT_LENGTH, parseScheduledAt } from './schedule.js';
import { reschedule } from '../queue/transitions.js';

interface EmailStateRow {
  id: string;
  last_event: string;
}

export function updateEmail(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/emails/:id',
    doc: {
      summary: 'Reschedule a scheduled email',
      body: input(
        { scheduled_at: string({ maxLength: MAX_SCHEDULED_AT_LENGTH, description: 'ISO 8601, or natural language ("in 1 min"); at most 30 days ahead.' }) },
        ['scheduled_at'],
      ),
      params: { id: uuid() },
      response: { status: 200, schema: objectId('email') },
    },
    async handler({ principal, params, body }) {
      const id = params.id!;
      const scheduledAt = parseScheduledAt((body as { scheduled_at: string }).scheduled_at);
      await db.tx(async (q) => {
        const email = await q.one<EmailStateRow>('SELECT id, last_event FROM emails WHERE id = $1 AND account_id = $2 FOR NO KEY UPDATE', [
          id,
          principal.accountId,
        ]);
        if (!email) throw notFound('Email');
        if (email.last_event !== 'scheduled') throw validation('Only scheduled emails can be rescheduled.', 403);
        await q.query('UPDATE emails SET scheduled_at = $2 WHERE id = $1', [email.id, scheduledAt]);
        await reschedule(q, email.id, scheduledAt);
      });
      return { body: { object: 'email', id } };
    },
  };
}
