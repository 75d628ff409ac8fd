// GET /events/:identifier (an id or a name; the SDK encodeURIComponent's it).
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { eventDetail } from './event-view.js';
import { findEvent } from './find-event.js';

export function getEvent(db: Db): Route {
  return {
    method: 'GET',
    url: '/events/:identifier',
    async handler({ principal, params }) {
      return { body: eventDetail(await findEvent(db, principal.accountId, params.identifier!)) };
    },
  };
}
