// GET /segments/:id (and GET /audiences/:id).
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { findSegment, segmentDetail, type SegmentNoun } from './segment-view.js';

export function getSegment(db: Db, noun: SegmentNoun): Route {
  return {
    method: 'GET',
    url: noun === 'segment' ? '/segments/:id' : '/audiences/:id',
    async handler({ principal, params }) {
      return { body: segmentDetail(await findSegment(db, principal.accountId, params.id, noun), noun) };
    },
  };
}
