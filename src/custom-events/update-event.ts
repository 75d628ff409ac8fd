// PATCH /events/:identifier {schema}: replaces the schema (null clears it). Payloads sent
// from now on are checked against the new schema; runs already started keep theirs.
import type { Route } from '../api/route.js';
import { input, objectId, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { EVENT_SCHEMA_SCHEMA, type EventSchema } from './event-fields.js';
import { findEvent } from './find-event.js';

export function updateEvent(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/events/:identifier',
    doc: {
      summary: "Replace a custom event's payload schema",
      params: { identifier: string({ description: 'The event id, or its name.' }) },
      body: input({ schema: EVENT_SCHEMA_SCHEMA }, ['schema']),
      response: { status: 200, schema: objectId('event') },
    },
    async handler({ principal, params, body }) {
      const { schema } = body as { schema: EventSchema | null };
      const id = await db.tx(async (q) => {
        const event = await findEvent(q, principal.accountId, params.identifier!, { lock: true });
        await q.query('UPDATE event_definitions SET schema = $2, updated_at = now() WHERE id = $1', [event.id, schema && JSON.stringify(schema)]);
        return event.id;
      });
      return { body: { object: 'event', id } };
    },
  };
}
