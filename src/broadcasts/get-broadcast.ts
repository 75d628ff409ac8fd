// GET /broadcasts/:id: the whole broadcast, its content included.
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findBroadcast } from './find-broadcast.js';
import { BROADCAST_SCHEMA, broadcastDetail } from './broadcast-view.js';

export function getBroadcast(db: Db): Route {
  return {
    method: 'GET',
    url: '/broadcasts/:id',
    doc: { summary: 'Retrieve a broadcast', params: { id: uuid() }, response: { status: 200, schema: BROADCAST_SCHEMA } },
    async handler({ principal, params }) {
      return { body: broadcastDetail(await findBroadcast(db, principal.accountId, params.id!)) };
    },
  };
}
