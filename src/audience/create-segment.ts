// POST /segments {name} (and the deprecated POST /audiences): 201 {object, id, name}.
// Segments here are static lists that contacts are added to; Resend's dynamic `filter` is
// not supported and is refused rather than ignored.
import type { Route } from '../api/route.js';
import { constant, input, type JsonSchema, object, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { SEGMENT_NAME_SCHEMA, type SegmentNoun } from './segment-view.js';

/** Resend's dynamic segments: refused with a message that says why, rather than as an unknown field. */
const FILTER_SCHEMA: JsonSchema = {
  not: {},
  description: "Resend's dynamic segments: not supported, refused.",
  'x-message': 'be left out: a segment is a list contacts are added to (a `filter` is not supported)',
};

export function createSegment(db: Db, noun: SegmentNoun): Route {
  return {
    method: 'POST',
    url: noun === 'segment' ? '/segments' : '/audiences',
    doc: {
      summary: noun === 'segment' ? 'Create a segment' : 'Create an audience (deprecated: a segment)',
      body: input({ name: SEGMENT_NAME_SCHEMA, filter: FILTER_SCHEMA }, ['name']),
      response: { status: 201, schema: object({ object: constant(noun), id: uuid(), name: { type: 'string' } }) },
    },
    async handler({ principal, body }) {
      const { name } = body as { name: string };
      const id = crypto.randomUUID();
      await db.query('INSERT INTO segments (id, account_id, name) VALUES ($1, $2, $3)', [id, principal.accountId, name]);
      return { status: 201, body: { object: noun, id, name } };
    },
  };
}
