// GET /webhooks/:id: one endpoint with its signing secret.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { findWebhook, WEBHOOK_PARAMS } from './find-webhook.js';
import { WEBHOOK_SCHEMA, webhookDetail } from './webhook-view.js';

export function getWebhook(db: Db): Route {
  return {
    method: 'GET',
    url: '/webhooks/:id',
    doc: { summary: 'Retrieve a webhook endpoint, with its signing secret', params: WEBHOOK_PARAMS, response: { status: 200, schema: WEBHOOK_SCHEMA } },
    handler: async ({ principal, params }) => ({ body: webhookDetail(await findWebhook(db, principal.accountId, params.id)) }),
  };
}
