// DELETE /broadcasts/:id (interface-spec §3, §4.3): only a broadcast that has not been sent.
// A draft is removed; a scheduled one is removed before its time, so it is never sent (the
// fan-out's claim skips the row while it is locked here and finds nothing after); a canceled
// one that sent nothing is removed too. A broadcast that is being sent or has been sent
// stays: 403 validation_error naming its state. Unknown id: 404.
import type { Route } from '../api/route.js';
import { deletedObject, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findBroadcast, UNSENT, wrongState } from './find-broadcast.js';

export function deleteBroadcast(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/broadcasts/:id',
    doc: { summary: 'Delete a broadcast that has not been sent', params: { id: uuid() }, response: { status: 200, schema: deletedObject('broadcast') } },
    async handler({ principal, params }) {
      const id = await db.tx(async (q) => {
        const broadcast = await findBroadcast(q, principal.accountId, params.id!, { lock: true });
        const unsent = UNSENT.includes(broadcast.status) || (broadcast.status === 'canceled' && broadcast.recipients === 0);
        if (!unsent) throw wrongState(broadcast.status, 'deleted');
        await q.query('DELETE FROM broadcasts WHERE id = $1 AND account_id = $2', [broadcast.id, principal.accountId]);
        return broadcast.id;
      });
      return { body: { object: 'broadcast', id, deleted: true } };
    },
  };
}
