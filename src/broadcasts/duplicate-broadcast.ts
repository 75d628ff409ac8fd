// POST /broadcasts/:id/duplicate (the SDK's broadcasts.duplicate): a new draft with the same
// segment, topic, sender and content, whatever the state of the original.
import crypto from 'node:crypto';
import type { Route } from '../api/route.js';
import { objectId, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findBroadcast } from './find-broadcast.js';

export function duplicateBroadcast(db: Db): Route {
  return {
    method: 'POST',
    url: '/broadcasts/:id/duplicate',
    doc: {
      summary: 'Duplicate a broadcast as a new draft',
      description: "In the resend SDK (broadcasts.duplicate), not in Resend's published OpenAPI description.",
      addition: true,
      params: { id: uuid() },
      response: { status: 201, schema: objectId('broadcast') },
    },
    async handler({ principal, params }) {
      const original = await findBroadcast(db, principal.accountId, params.id!);
      const id = crypto.randomUUID();
      await db.query(
        `INSERT INTO broadcasts (id, account_id, name, segment_id, topic_id, from_address, subject, reply_to, preview_text, html, text)
         SELECT $1, account_id, name, segment_id, topic_id, from_address, subject, reply_to, preview_text, html, text
           FROM broadcasts WHERE id = $2 AND account_id = $3`,
        [id, original.id, principal.accountId],
      );
      return { status: 201, body: { object: 'broadcast', id } };
    },
  };
}
