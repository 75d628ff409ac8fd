// PATCH /broadcasts/:id: changes the fields given (null clears an optional one) while the
// broadcast has not gone out (draft or scheduled). A scheduled broadcast must stay sendable:
// it is checked again as POST /send checks it, in the same transaction.
import type { Route } from '../api/route.js';
import { objectId, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import type { SandboxSending } from '../emails/sender-domain.js';
import { type BroadcastBody, type BroadcastInput, broadcastInput, checkAudience, UPDATE_BROADCAST_SCHEMA } from './broadcast-fields.js';
import { findBroadcast, UNSENT, wrongState } from './find-broadcast.js';
import { BROADCAST_COLUMNS, type BroadcastRow } from './broadcast-view.js';
import { assertSendable } from './start-sending.js';

const COLUMNS: Record<keyof BroadcastInput, string> = {
  name: 'name',
  segmentId: 'segment_id',
  topicId: 'topic_id',
  from: 'from_address',
  subject: 'subject',
  replyTo: 'reply_to',
  previewText: 'preview_text',
  html: 'html',
  text: 'text',
};

export function updateBroadcast(db: Db, sandbox?: SandboxSending): Route {
  return {
    method: 'PATCH',
    url: '/broadcasts/:id',
    doc: {
      summary: 'Update a broadcast that has not gone out (null clears a field)',
      params: { id: uuid() },
      body: UPDATE_BROADCAST_SCHEMA,
      response: { status: 200, schema: objectId('broadcast') },
    },
    async handler({ principal, params, body }) {
      const input = broadcastInput(body as BroadcastBody);
      const id = await db.tx(async (q) => {
        const current = await findBroadcast(q, principal.accountId, params.id!, { lock: true });
        if (!UNSENT.includes(current.status)) throw wrongState(current.status, 'changed');
        await checkAudience(q, principal.accountId, input);
        const changes = (Object.keys(COLUMNS) as (keyof BroadcastInput)[]).filter((k) => input[k] !== undefined);
        if (changes.length === 0) return current.id;
        const updated = await q.one<BroadcastRow>(
          `UPDATE broadcasts SET ${changes.map((k, i) => `${COLUMNS[k]} = $${i + 3}`).join(', ')}, updated_at = now()
            WHERE id = $1 AND account_id = $2 RETURNING ${BROADCAST_COLUMNS}`,
          [current.id, principal.accountId, ...changes.map((k) => input[k])],
        );
        if (updated!.status === 'scheduled') await assertSendable(q, principal, updated!, sandbox);
        return current.id;
      });
      return { body: { object: 'broadcast', id } };
    },
  };
}
