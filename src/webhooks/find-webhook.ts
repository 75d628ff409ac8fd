// Finding an endpoint or one of its messages for the caller: always within the caller's
// account, so another account's id reads as "not found", never as "forbidden".
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Queryable } from '../db/database.js';
import { MESSAGE_COLUMNS, type MessageDetailRow, WEBHOOK_COLUMNS, type WebhookRow, type WithEndpointStatus } from './webhook-view.js';

/** msg_ and the unpadded base64 of 16 random bytes without + and / (0005_webhooks.sql, fan-out.ts). */
export const MESSAGE_ID = /^msg_[A-Za-z0-9]{1,64}$/;

export async function findWebhook(q: Queryable, accountId: string, id: string | undefined, options: { lock?: boolean } = {}): Promise<WebhookRow> {
  const row = isUuid(id)
    ? await q.one<WebhookRow>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND account_id = $2 ${options.lock ? 'FOR UPDATE' : ''}`, [id, accountId])
    : undefined;
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
