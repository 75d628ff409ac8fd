// GET /broadcasts: the account's broadcasts, newest first, paginated (100 per page unless
// `limit` says otherwise, as Resend's older lists return everything).
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { BROADCAST_COLUMNS, BROADCAST_SUMMARY_SCHEMA, type BroadcastRow, broadcastSummary } from './broadcast-view.js';

export function listBroadcasts(db: Db): Route {
  return accountList<BroadcastRow>(db, {
    url: '/broadcasts',
    table: 'broadcasts',
    columns: BROADCAST_COLUMNS,
    defaultLimit: 100,
    doc: { summary: 'List broadcasts', item: BROADCAST_SUMMARY_SCHEMA },
    view: (rows) => rows.map(broadcastSummary),
  });
}
