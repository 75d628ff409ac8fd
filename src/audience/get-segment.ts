// GET /segments/:id (and GET /audiences/:id), with the number of its contacts (Postline's
// addition: one index-only count of its membership; the lists leave it out, where it would be a
// count per segment of the page).
import type { Route } from '../api/route.js';
import { integer, object, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findSegment, segmentDetail, segmentSchema, type SegmentNoun } from './segment-view.js';

export function getSegment(db: Db, noun: SegmentNoun): Route {
  return {
    method: 'GET',
    url: noun === 'segment' ? '/segments/:id' : '/audiences/:id',
    doc: {
      summary: noun === 'segment' ? 'Retrieve a segment' : 'Retrieve an audience (deprecated: a segment)',
      params: { id: uuid() },
      response: {
        status: 200,
        schema: object({
          ...segmentSchema(noun).properties,
          contacts_count: integer({ description: 'Postline: how many contacts the segment holds now.' }),
        }),
      },
    },
    async handler({ principal, params }) {
      const segment = await findSegment(db, principal.accountId, params.id, noun);
      const members = await db.one<{ count: number }>('SELECT count(*)::int AS count FROM segment_contacts WHERE segment_id = $1', [segment.id]);
      return { body: { ...segmentDetail(segment, noun), contacts_count: members!.count } };
    },
  };
}
