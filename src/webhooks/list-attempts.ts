// GET /webhooks/:id/events/:message_id/attempts (the SDK's webhooks.events.attempts.list):
// the delivery log of one message, newest first: status code (0 when no HTTP response came
// back), latency, the first KB of the response or the error, and when it was sent.
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { findMessage, findWebhook, MESSAGE_PARAMS } from './find-webhook.js';
import { ATTEMPT_COLUMNS, ATTEMPT_SCHEMA, type AttemptRow, attemptView } from './webhook-view.js';

export function listAttempts(db: Db): Route {
  return {
    method: 'GET',
    url: '/webhooks/:id/events/:message_id/attempts',
    doc: {
      ...listDoc("List a webhook message's delivery attempts, newest first", ATTEMPT_SCHEMA),
      description: "In the resend SDK (webhooks.events.attempts.list), not in Resend's published OpenAPI description.",
      addition: true,
      params: MESSAGE_PARAMS,
    },
    async handler({ principal, params, query }) {
      const page = parsePage(query);
      const webhook = await findWebhook(db, principal.accountId, params.id);
      const message = await findMessage(db, webhook, params.message_id);
      const { rows, hasMore } = await listPage<AttemptRow>(db, {
        table: 'webhook_attempts',
        columns: ATTEMPT_COLUMNS,
        where: 'message_id = $1 AND webhook_id = $2',
        params: [message.id, webhook.id],
        page,
      });
      return { body: envelope(rows.map(attemptView), hasMore) };
    },
  };
}
