// DELETE /webhooks/:id: the endpoint, its messages (cascade) and its delivery log.
import type { Route } from '../api/route.js';
import { deletedObject } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findWebhook, WEBHOOK_PARAMS } from './find-webhook.js';

export function deleteWebhook(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/webhooks/:id',
    doc: { summary: 'Delete a webhook endpoint', params: WEBHOOK_PARAMS, response: { status: 200, schema: deletedObject('webhook') } },
    async handler({ principal, params }) {
      const id = await db.tx(async (q) => {
        const webhook = await findWebhook(q, principal.accountId, params.id, { lock: true });
        await q.query('DELETE FROM webhooks WHERE id = $1', [webhook.id]);
        await q.query('DELETE FROM webhook_attempts WHERE webhook_id = $1', [webhook.id]);
        return webhook.id as string;
      });
      return { body: { object: 'webhook', id, deleted: true } };
    },
  };
}
