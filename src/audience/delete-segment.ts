// DELETE /segments/:id (and DELETE /audiences/:id): removes the segment and its memberships;
// the contacts themselves stay. Unknown or another account's segment: 404.
import type { Route } from '../api/route.js';
import { deletedObject, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findSegment, type SegmentNoun } from './segment-view.js';

export function deleteSegment(db: Db, noun: SegmentNoun): Route {
  return {
    method: 'DELETE',
    url: noun === 'segment' ? '/segments/:id' : '/audiences/:id',
    doc: {
      summary: noun === 'segment' ? 'Delete a segment (its contacts stay)' : 'Delete an audience (deprecated: a segment)',
      params: { id: uuid() },
      response: { status: 200, schema: deletedObject(noun) },
    },
    async handler({ principal, params }) {
      const segment = await findSegment(db, principal.accountId, params.id, noun);
      await db.query('DELETE FROM segments WHERE id = $1 AND account_id = $2', [segment.id, principal.accountId]);
      return { body: { object: noun, id: segment.id, deleted: true } };
    },
  };
}
