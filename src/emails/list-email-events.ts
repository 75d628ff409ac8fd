// GET /emails/:id/events: an email's lifecycle events, oldest first, for its timeline: each as
// the outbox recorded it (events/record-events.ts, the one writer), with the webhook payload's
// `data` (which recipients, the bounce, the clicked link, …). At most MAX per answer; an
// email's events are few (sent, delivered, then opens and clicks), `has_more` says when not.
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Route } from '../api/route.js';
import { array, boolean, constant, integer, object, oneOfValues, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { EMAIL_EVENTS } from '../events/catalogue.js';

const MAX = 500;

const EVENT_SCHEMA = object({
  id: integer({ description: "The event's position in the outbox (increasing)." }),
  type: oneOfValues(Object.keys(EMAIL_EVENTS)),
  created_at: string({ format: 'date-time' }),
  data: object({}, [], { description: 'The `data` of the webhook payload for this event.', additionalProperties: true }),
});

export function listEmailEvents(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails/:id/events',
    doc: {
      summary: "An email's events, oldest first",
      description: `For an email's timeline. At most ${MAX}; \`has_more\` says whether there were more.`,
      addition: true,
      response: { status: 200, schema: object({ object: constant('list'), has_more: boolean(), data: array(EVENT_SCHEMA) }) },
    },
    async handler({ principal, params }) {
      const email = isUuid(params.id) ? await db.one('SELECT id FROM emails WHERE id = $1 AND account_id = $2', [params.id, principal.accountId]) : undefined;
      if (!email) throw notFound('Email');
      const rows = await db.query<{ id: string; type: string; created_at: Date; data: unknown }>(
        'SELECT id, type, created_at, data FROM events WHERE email_id = $1 ORDER BY id LIMIT $2',
        [params.id, MAX + 1],
      );
      const data = rows.slice(0, MAX).map((r) => ({ id: Number(r.id), type: r.type, created_at: r.created_at.toISOString(), data: r.data }));
      return { body: { object: 'list', has_more: rows.length > MAX, data } };
    },
  };
}
