// GET /events/:identifier (an id or a name; the SDK encodeURIComponent's it).
import type { Route } from '../api/route.js';
import { string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { EVENT_SCHEMA, eventDetail } from './event-view.js';
import { findEvent } from './find-event.js';

export function getEvent(db: Db): Route {
  return {
    method: 'GET',
    url: '/events/:identifier',
    doc: {
      summary: 'Retrieve a custom event, by id or name',
      params: { identifier: string({ description: 'The event id, or its name.' }) },
      response: { status: 200, schema: EVENT_SCHEMA },
    },
    async handler({ principal, params }) {
      return { body: eventDetail(await findEvent(db, principal.accountId, params.identifier!)) };
    },
  };
}
