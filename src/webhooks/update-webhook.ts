// PATCH /webhooks/:id: endpoint, events and status, each optional. Disabling stops both the
// fan-out of new events and attempts of messages already made; enabling again resumes those
// messages where they were and forgets the endpoint's past failures (the disable clock).
import type { Route } from '../api/route.js';
import { objectId } from '../api/schema.js';
import type { Db } from '../db/database.js';
import type { DestinationPolicy } from '../egress/destination-policy.js';
import { checkEndpoint, distinctEvents, UPDATE_WEBHOOK_SCHEMA, type WebhookFields } from './webhook-fields.js';
import { findWebhook, WEBHOOK_PARAMS } from './find-webhook.js';

export function updateWebhook(db: Db, destinations: DestinationPolicy): Route {
  return {
    method: 'PATCH',
    url: '/webhooks/:id',
    doc: { summary: 'Update a webhook endpoint', params: WEBHOOK_PARAMS, body: UPDATE_WEBHOOK_SCHEMA, response: { status: 200, schema: objectId('webhook') } },
    async handler({ principal, params, body }) {
      const fields = body as WebhookFields;
      const endpoint = fields.endpoint === undefined ? undefined : checkEndpoint(fields.endpoint, destinations);
      const events = fields.events && distinctEvents(fields.events);
      const status = fields.status;
      const webhook = await findWebhook(db, principal.accountId, params.id);
      await db.query(
        `UPDATE webhooks SET endpoint = COALESCE($3, endpoint), events = COALESCE($4, events), status = COALESCE($5, status),
                failing_since = CASE WHEN $5 = 'enabled' AND status = 'disabled' THEN NULL ELSE failing_since END
          WHERE id = $1 AND account_id = $2`,
        [webhook.id, principal.accountId, endpoint ?? null, events ?? null, status ?? null],
      );
      return { body: { object: 'webhook', id: webhook.id } };
    },
  };
}
