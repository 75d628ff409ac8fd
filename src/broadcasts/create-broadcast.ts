// POST /broadcasts: a draft, or with `send: true` one that goes out at once or at
// `scheduled_at` (ISO 8601 or natural language, src/emails/schedule.ts). 201 {object, id}.
// A broadcast created to be sent is checked as POST /send checks it, in the same
// transaction, so a refused one is not left behind as a draft.
import crypto from 'node:crypto';
import { validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { objectId } from '../api/schema.js';
import type { Db } from '../db/database.js';
import type { SandboxSending } from '../emails/sender-domain.js';
import { parseScheduledAt } from '../emails/schedule.js';
import { type BroadcastBody, broadcastInput, checkAudience, CREATE_BROADCAST_SCHEMA } from './broadcast-fields.js';
import { BROADCAST_COLUMNS, type BroadcastRow } from './broadcast-view.js';
import { startSending } from './start-sending.js';

export function createBroadcast(db: Db, sandbox?: SandboxSending): Route {
  return {
    method: 'POST',
    url: '/broadcasts',
    doc: {
      summary: 'Create a broadcast (a draft, or sent with `send: true`)',
      body: CREATE_BROADCAST_SCHEMA,
      response: { status: 201, schema: objectId('broadcast') },
    },
    async handler({ principal, body }) {
      const fields = body as BroadcastBody;
      const input = broadcastInput(fields);
      const send = fields.send ?? false;
      if (fields.scheduled_at !== undefined && !send) throw validation('The `scheduled_at` field can only be used together with `send: true`.');
      const scheduledAt = fields.scheduled_at === undefined ? null : parseScheduledAt(fields.scheduled_at);
      const id = crypto.randomUUID();
      await db.tx(async (q) => {
        await checkAudience(q, principal.accountId, input);
        const row = await q.one<BroadcastRow>(
          `INSERT INTO broadcasts (id, account_id, name, segment_id, topic_id, from_address, subject, reply_to, preview_text, html, text)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           RETURNING ${BROADCAST_COLUMNS}`,
          [
            id,
            principal.accountId,
            input.name ?? null,
            input.segmentId,
            input.topicId ?? null,
            input.from,
            input.subject,
            input.replyTo ?? null,
            input.previewText ?? null,
            input.html ?? null,
            input.text ?? null,
          ],
        );
        if (send) await startSending(q, principal, row!, scheduledAt, sandbox);
      });
      return { status: 201, body: { object: 'broadcast', id } };
    },
  };
}
