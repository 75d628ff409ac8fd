// GET /webhooks: the account's endpoints, newest first (the signing secret only by id).
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { WEBHOOK_COLUMNS, WEBHOOK_SUMMARY_SCHEMA, type WebhookRow, webhookSummary } from './webhook-view.js';

export function listWebhooks(db: Db): Route {
  return accountList<WebhookRow>(db, {
    url: '/webhooks',
    table: 'webhooks',
    columns: WEBHOOK_COLUMNS,
    view: (rows) => rows.map(webhookSummary),
    doc: { summary: 'List webhook endpoints', item: WEBHOOK_SUMMARY_SCHEMA },
  });
}
