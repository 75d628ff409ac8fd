// GET /webhooks: the account's endpoints, newest first (the signing secret only by id).
import { envelope, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { WEBHOOK_COLUMNS, webhookSummary } from './webhook-view.js';

export function listWebhooks(db: Db): Route {
  return {
    method: 'GET',
    url: '/webhooks',
    async handler({ principal, query }) {
      const { rows, hasMore } = await listPage(db, {
        table: 'webhooks',
        columns: WEBHOOK_COLUMNS,
        where: 'account_id = $1',
        params: [principal.accountId],
        page: parsePage(query),
      });
      return { body: envelope(rows.map(webhookSummary), hasMore) };
    },
  };
}
