// GET /emails/:id/events: an email's lifecycle events, oldest first, for its timeline: each as
// the outbox recorded it (events/record-events.ts, the one writer), with the webhook payload's
// `data` (which recipients, the bounce, the clicked link, …). Paged as Resend's lists are
// (`limit`, `after`, `before`, `has_more`), the cursors being event ids: an email opened and
// clicked by a whole list has thousands.
import { envelope, listDoc, listOldestFirst, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { integer, object, oneOfValues, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { accountEmailOr404 } from '../email-row/account-email.js';
import { EMAIL_EVENTS } from '../events/catalogue.js';
import { EMAIL_EVENT_DATA_SCHEMA } from '../events/payloads.js';

const EVENT_SCHEMA = object({
  id: integer({ description: "The event's position in the outbox (increasing)." }),
  type: oneOfValues(Object.keys(EMAIL_EVENTS)),
  created_at: string({ format: 'date-time' }),
  data: { ...EMAIL_EVENT_DATA_SCHEMA, description: 'The `data` of the webhook payload for this event.' },
});

interface EmailEventRow {
  id: number;
  type: string;
  created_at: Date;
  /** The webhook payload's `data` (events/payloads.ts), passed on as stored. */
  data: unknown;
}

export function listEmailEvents(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails/:id/events',
    doc: {
      ...listDoc("An email's events, oldest first", EVENT_SCHEMA, { defaultLimit: 100, cursor: 'serial' }),
      description: "For an email's timeline. `after` and `before` are event ids; `after` goes on to later events.",
      params: { id: uuid() },
      addition: true,
    },
    async handler({ principal, params, query }) {
      const page = parsePage(query, { defaultLimit: 100 });
      const emailId = await accountEmailOr404(db, principal.accountId, params.id);
      const { rows, hasMore } = await listOldestFirst<EmailEventRow>(db, {
        table: 'events',
        columns: 'id, type, created_at, data',
        where: 'email_id = $1',
        params: [emailId],
        key: ['id'],
        page,
      });
      const data = rows.map((r) => ({ id: Number(r.id), type: r.type, created_at: r.created_at.toISOString(), data: r.data }));
      return { body: envelope(data, hasMore) };
    },
  };
}
