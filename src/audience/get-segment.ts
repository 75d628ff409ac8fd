// GET /segments/:id (and GET /audiences/:id).
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findSegment, segmentDetail, segmentSchema, type SegmentNoun } from './segment-view.js';

export function getSegment(db: Db, noun: SegmentNoun): Route {
  return {
    method: 'GET',
    url: noun === 'segment' ? '/segments/:id' : '/audiences/:id',
    doc: {
      summary: noun === 'segment' ? 'Retrieve a segment' : 'Retrieve an audience (deprecated: a segment)',
      params: { id: uuid() },
      response: { status: 200, schema: segmentSchema(noun) },
    },
    async handler({ principal, params }) {
      return { body: segmentDetail(await findSegment(db, principal.accountId, params.id, noun), noun) };
    },
  };
}
