// DELETE /sandbox/messages/:id and DELETE /sandbox/messages: captured mail thrown away, one
// message or all of the caller's account (never another account's), as Mailpit's delete. The
// emails they were captured from stay, with their events: only the catcher's copy goes.
import type { Route } from '../api/route.js';
import { constant, deletedObject, integer, object, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findCaptured } from './captured-message.js';

export function deleteCapturedMessage(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/sandbox/messages/:id',
    doc: {
      summary: 'Delete one captured message (the email it was captured from stays)',
      addition: true,
      params: { id: uuid() },
      response: { status: 200, schema: deletedObject('sandbox_message') },
    },
    async handler({ principal, params }) {
      const row = await findCaptured(db, principal.accountId, params.id!);
      await db.query('DELETE FROM sandbox_messages WHERE id = $1 AND account_id = $2', [row.id, principal.accountId]);
      return { body: { object: 'sandbox_message', id: row.id, deleted: true } };
    },
  };
}

export function deleteAllCapturedMessages(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/sandbox/messages',
    doc: {
      summary: "Delete all of the account's captured messages (other accounts' stay)",
      addition: true,
      response: {
        status: 200,
        schema: object({ object: constant('sandbox_messages'), deleted: integer({ minimum: 0, description: 'How many captured messages were deleted.' }) }),
      },
    },
    async handler({ principal }) {
      const deleted = await db.query<{ id: string }>('DELETE FROM sandbox_messages WHERE account_id = $1 RETURNING id', [principal.accountId]);
      return { body: { object: 'sandbox_messages', deleted: deleted.length } };
    },
  };
}
