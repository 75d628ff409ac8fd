// POST /segments {name} (and the deprecated POST /audiences): 201 {object, id, name}.
// Segments here are static lists that contacts are added to; Resend's dynamic `filter` is
// not supported and is refused rather than ignored.
import { validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { constant, input, object, uuid } from '../api/schema.js';
import { objectBody, rejectUnknown, requiredString } from '../api/validate.js';
import type { Db } from '../db/database.js';
import { MAX_SEGMENT_NAME, SEGMENT_NAME_SCHEMA, type SegmentNoun } from './segment-view.js';

export function createSegment(db: Db, noun: SegmentNoun): Route {
  return {
    method: 'POST',
    url: noun === 'segment' ? '/segments' : '/audiences',
    doc: {
      summary: noun === 'segment' ? 'Create a segment' : 'Create an audience (deprecated: a segment)',
      body: input({ name: SEGMENT_NAME_SCHEMA }, ['name']),
      response: { status: 201, schema: object({ object: constant(noun), id: uuid(), name: { type: 'string' } }) },
    },
    async handler({ principal, body: raw }) {
      const body = objectBody(raw);
      if (body.filter !== undefined && body.filter !== null) throw validation('The `filter` field is not supported: segments are lists contacts are added to.');
      rejectUnknown(body, ['name', 'filter']);
      const name = requiredString(body, 'name', { max: MAX_SEGMENT_NAME });
      const id = crypto.randomUUID();
      await db.query('INSERT INTO segments (id, account_id, name) VALUES ($1, $2, $3)', [id, principal.accountId, name]);
      return { status: 201, body: { object: noun, id, name } };
    },
  };
}
