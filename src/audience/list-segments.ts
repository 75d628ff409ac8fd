// GET /segments (and GET /audiences): the account's segments, newest first, paginated
// (100 per page unless `limit` says otherwise, as Resend's older lists return everything).
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { SEGMENT_COLUMNS, SEGMENT_SUMMARY_SCHEMA, segmentSummary, type SegmentNoun, type SegmentRow } from './segment-view.js';

export function listSegments(db: Db, noun: SegmentNoun): Route {
  return accountList<SegmentRow>(db, {
    url: noun === 'segment' ? '/segments' : '/audiences',
    table: 'segments',
    columns: SEGMENT_COLUMNS,
    defaultLimit: 100,
    doc: { summary: noun === 'segment' ? 'List segments' : 'List audiences (deprecated: segments)', item: SEGMENT_SUMMARY_SCHEMA },
    view: (rows) => rows.map(segmentSummary),
  });
}
