// Finding an endpoint or one of its messages for the caller: always within the caller's
// account, so another account's id reads as "not found", never as "forbidden". The endpoint's
// id is a route's `:id`, a UUID its schema checked (WEBHOOK_PARAMS).
import { notFound } from '../api/errors.js';
import { string, uuid } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import { MESSAGE_COLUMNS, type MessageDetailRow, WEBHOOK_COLUMNS, type WebhookRow, type WithEndpointStatus } from './webhook-view.js';

/** msg_ and the unpadded base64 of 16 random bytes without + and / (0005_webhooks.sql, fan-out.ts). */
export const MESSAGE_ID = /^msg_[A-Za-z0-9]{1,64}$/;

/** The path parameters of the routes about one endpoint (`:id`) and one of its messages (`:message_id`). */
export const WEBHOOK_PARAMS = { id: uuid() };
export const MESSAGE_PARAMS = { ...WEBHOOK_PARAMS, message_id: string({ pattern: MESSAGE_ID.source }) };

export async function findWebhook(q: Queryable, accountId: string, id: string | undefined, options: { lock?: boolean } = {}): Promise<WebhookRow> {
  const row = await q.one<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND account_id = $2 ${options.lock ? 'FOR UPDATE' : ''}`, [
    id,
    accountId,
  ]);
  if (!row) throw notFound('Webhook');
  return row;
}

/** A message of `webhook` with its event's type, time and data (for the payload). */
export async function findMessage(q: Queryable, webhook: WebhookRow, messageId: string | undefined): Promise<WithEndpointStatus<MessageDetailRow>> {
  const row =
    messageId && MESSAGE_ID.test(messageId)
      ? await q.one<MessageDetailRow>(
          `SELECT ${MESSAGE_COLUMNS.split(', ')
            .map((c) => `m.${c}`)
            .join(', ')},
                  e.created_at AS event_created_at, e.data AS event_data
             FROM webhook_messages m JOIN events e ON e.id = m.event_id
            WHERE m.id = $1 AND m.webhook_id = $2`,
          [messageId, webhook.id],
        )
      : undefined;
  if (!row) throw notFound('Webhook event');
  return { ...row, webhook_status: webhook.status };
}
