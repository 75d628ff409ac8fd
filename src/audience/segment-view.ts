// How a segment reads over the API (resend-compat-notes §2.5). /audiences is the deprecated
// name of the same thing: the same rows, with `object: 'audience'` and "Audience not found".
import { notFound } from '../api/errors.js';
import { restTimestamp } from '../api/format.js';
import { constant, object, restTime, string, uuid } from '../api/schema.js';
import type { Queryable } from '../db/database.js';

export type SegmentNoun = 'segment' | 'audience';
export const SEGMENT_COLUMNS = 'id, name, created_at';
/** A segment as SEGMENT_COLUMNS reads it. */
export interface SegmentRow {
  id: string;
  name: string;
  created_at: Date;
}

/** Longest segment name kept. */
const MAX_SEGMENT_NAME = 256;

const segmentNotFound = (noun: SegmentNoun) => notFound(noun === 'segment' ? 'Segment' : 'Audience');

/** The account's segment `id` (a UUID: the route's schema checked it, path or query), or 404. */
export async function findSegment(q: Queryable, accountId: string, id: string | undefined, noun: SegmentNoun = 'segment'): Promise<SegmentRow> {
  const row = await q.one<SegmentRow>(`SELECT ${SEGMENT_COLUMNS} FROM segments WHERE id = $1 AND account_id = $2`, [id, accountId]);
  if (!row) throw segmentNotFound(noun);
  return row;
}

/** segmentSummary's shape, for the routes' docs. */
export const SEGMENT_SUMMARY_SCHEMA = object({ id: uuid(), name: string(), created_at: restTime() });
export const segmentSchema = (noun: SegmentNoun) => object({ object: constant(noun), ...SEGMENT_SUMMARY_SCHEMA.properties });
export const SEGMENT_NAME_SCHEMA = string({ minLength: 1, maxLength: MAX_SEGMENT_NAME });

export function segmentSummary(row: SegmentRow) {
  return { id: row.id, name: row.name, created_at: restTimestamp(row.created_at)! };
}

export function segmentDetail(row: SegmentRow, noun: SegmentNoun) {
  return { object: noun, ...segmentSummary(row) };
}
