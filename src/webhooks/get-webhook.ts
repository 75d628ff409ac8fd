// GET /webhooks/:id: one endpoint with its signing secret.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { findWebhook } from './find-webhook.js';
import { webhookDetail } from './webhook-view.js';

export function getWebhook(db: Db): Route {
  return {
    method: 'GET',
    url: '/webhooks/:id',
    handler: async ({ principal, params }) => ({ body: webhookDetail(await findWebhook(db, principal.accountId, params.id)) }),
  };
}
