// GET /webhooks/:id/events (the SDK's webhooks.events.list): the endpoint's messages, newest
// first, each with its delivery state. Resend's list envelope and cursors (limit 1..100,
// after/before), where a cursor is a message id (msg_…). Messages are ordered by their
// event (one fan-out makes many messages at the same instant), on the
// UNIQUE (webhook_id, event_id) index.
import { cursorError, envelope, listOf, pageQuery, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findWebhook, MESSAGE_ID, WEBHOOK_PARAMS } from './find-webhook.js';
import { MESSAGE_COLUMNS, MESSAGE_SUMMARY_SCHEMA, type MessageRow, messageSummary } from './webhook-view.js';

export function listMessages(db: Db): Route {
  return {
    method: 'GET',
    url: '/webhooks/:id/events',
    doc: {
      summary: "List a webhook endpoint's messages, newest first",
      description: "In the resend SDK (webhooks.events.list), not in Resend's published OpenAPI description.",
      addition: true,
      params: WEBHOOK_PARAMS,
      query: {
        limit: pageQuery().limit!,
        after: string({
          pattern: MESSAGE_ID.source,
          description: 'The message id after which the page starts (not with `before`).',
          'x-error': cursorError('after'),
        }),
        before: string({
          pattern: MESSAGE_ID.source,
          description: 'The message id before which the page ends (not with `after`).',
          'x-error': cursorError('before'),
        }),
      },
      response: { status: 200, schema: listOf(MESSAGE_SUMMARY_SCHEMA) },
    },
    async handler({ principal, params, query }) {
      const page = parsePage(query);
      const webhook = await findWebhook(db, principal.accountId, params.id);
      const cursor = page.after ?? page.before;
      const backwards = page.before !== undefined;
      const args: unknown[] = [webhook.id, page.limit + 1];
      if (cursor) args.push(cursor);
      const rows = await db.query<MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM webhook_messages
          WHERE webhook_id = $1
            ${cursor ? `AND event_id ${backwards ? '>' : '<'} (SELECT event_id FROM webhook_messages WHERE id = $3 AND webhook_id = $1)` : ''}
          ORDER BY event_id ${backwards ? 'ASC' : 'DESC'} LIMIT $2`,
        args,
      );
      const hasMore = rows.length > page.limit;
      const pageRows = rows.slice(0, page.limit);
      if (backwards) pageRows.reverse();
      return {
        body: envelope(
          pageRows.map((row) => messageSummary({ ...row, webhook_status: webhook.status })),
          hasMore,
        ),
      };
    },
  };
}
