// PATCH /segments/:id {name}: renames a segment (resend.segments.update).
import type { Route } from '../api/route.js';
import { input, objectId, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findSegment, SEGMENT_NAME_SCHEMA } from './segment-view.js';

export function updateSegment(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/segments/:id',
    doc: {
      summary: 'Rename a segment',
      description: "In the resend SDK (segments.update), not in Resend's published OpenAPI description.",
      addition: true,
      params: { id: uuid() },
      body: input({ name: SEGMENT_NAME_SCHEMA }, ['name']),
      response: { status: 200, schema: objectId('segment') },
    },
    async handler({ principal, params, body }) {
      const { name } = body as { name: string };
      const segment = await findSegment(db, principal.accountId, params.id);
      await db.query('UPDATE segments SET name = $3 WHERE id = $1 AND account_id = $2', [segment.id, principal.accountId, name]);
      return { body: { object: 'segment', id: segment.id } };
    },
  };
}
