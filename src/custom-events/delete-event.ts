// DELETE /events/:identifier: removes the definition (its schema stops applying). Events of
// that name may still be sent, and automations triggered by it keep working.
import type { Route } from '../api/route.js';
import { deletedObject, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findEvent } from './find-event.js';

export function deleteEvent(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/events/:identifier',
    doc: {
      summary: 'Delete a custom event definition',
      params: { identifier: string({ description: 'The event id, or its name.' }) },
      response: { status: 200, schema: deletedObject('event') },
    },
    async handler({ principal, params }) {
      const id = await db.tx(async (q) => {
        const event = await findEvent(q, principal.accountId, params.identifier!, { lock: true });
        await q.query('DELETE FROM event_definitions WHERE id = $1', [event.id]);
        return event.id;
      });
      return { body: { object: 'event', id, deleted: true } };
    },
  };
}
