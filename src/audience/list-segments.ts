// GET /segments (and GET /audiences): the account's segments, newest first, paginated
// (100 per page unless `limit` says otherwise, as Resend's older lists return everything).
import { envelope, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { SEGMENT_COLUMNS, segmentSummary, type SegmentNoun } from './segment-view.js';

export function listSegments(db: Db, noun: SegmentNoun): Route {
  return {
    method: 'GET',
    url: noun === 'segment' ? '/segments' : '/audiences',
    async handler({ principal, query }) {
      const { rows, hasMore } = await listPage(db, {
        table: 'segments',
        columns: SEGMENT_COLUMNS,
        where: 'account_id = $1',
        params: [principal.accountId],
        page: parsePage(query, { defaultLimit: 100 }),
      });
      return { body: envelope(rows.map(segmentSummary), hasMore) };
    },
  };
}
