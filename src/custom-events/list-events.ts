// GET /events: the caller's custom event definitions, newest first, paginated.
import { envelope, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { EVENT_COLUMNS, eventSummary } from './event-view.js';

export function listEvents(db: Db): Route {
  return {
    method: 'GET',
    url: '/events',
    async handler({ principal, query }) {
      const { rows, hasMore } = await listPage(db, {
        table: 'event_definitions',
        columns: EVENT_COLUMNS,
        where: 'account_id = $1',
        params: [principal.accountId],
        page: parsePage(query),
      });
      return { body: envelope(rows.map(eventSummary), hasMore) };
    },
  };
}
