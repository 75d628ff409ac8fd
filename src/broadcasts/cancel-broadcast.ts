// POST /broadcasts/:id/cancel: a scheduled broadcast is not sent after all; one being sent
// stops mid-way (Resend's "queued"): the fan-out's next chunk finds it canceled and rolls
// back, so no further emails are accepted; those already accepted still go out. Canceling
// again succeeds and changes nothing; a draft or a sent broadcast: 403 validation_error (§2.8).
import type { Route } from '../api/route.js';
import { objectId, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findBroadcast, wrongState } from './find-broadcast.js';

export function cancelBroadcast(db: Db): Route {
  return {
    method: 'POST',
    url: '/broadcasts/:id/cancel',
    doc: { summary: 'Cancel a scheduled broadcast, or stop one being sent', params: { id: uuid() }, response: { status: 200, schema: objectId('broadcast') } },
    async handler({ principal, params }) {
      const id = await db.tx(async (q) => {
        const broadcast = await findBroadcast(q, principal.accountId, params.id!, { lock: true });
        if (broadcast.status === 'canceled') return broadcast.id;
        if (broadcast.status !== 'scheduled' && broadcast.status !== 'sending') throw wrongState(broadcast.status, 'canceled');
        await q.query(`UPDATE broadcasts SET status = 'canceled', lease_until = NULL, updated_at = now() WHERE id = $1`, [broadcast.id]);
        return broadcast.id;
      });
      return { body: { object: 'broadcast', id } };
    },
  };
}
