// GET /broadcasts: the account's broadcasts, newest first, paginated (100 per page unless
// `limit` says otherwise, as Resend's older lists return everything).
import { envelope, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { BROADCAST_COLUMNS, broadcastSummary } from './broadcast-view.js';

export function listBroadcasts(db: Db): Route {
  return {
    method: 'GET',
    url: '/broadcasts',
    async handler({ principal, query }) {
      const { rows, hasMore } = await listPage(db, {
        table: 'broadcasts',
        columns: BROADCAST_COLUMNS,
        where: 'account_id = $1',
        params: [principal.accountId],
        page: parsePage(query, { defaultLimit: 100 }),
      });
      return { body: envelope(rows.map(broadcastSummary), hasMore) };
    },
  };
}
