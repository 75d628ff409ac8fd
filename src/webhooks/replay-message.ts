// POST /webhooks/:id/events/:message_id/replay (the SDK's webhooks.events.replay): send a
// message again, delivered or failed, with the same svix-id so receivers can dedupe it. A
// finished message gets one more attempt, without retries; one still being retried is
// simply made due now. The dispatcher picks it up on its next poll.
import { validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { constant, object, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findMessage, findWebhook, MESSAGE_ID, MESSAGE_PARAMS } from './find-webhook.js';

export function replayMessage(db: Db): Route {
  return {
    method: 'POST',
    url: '/webhooks/:id/events/:message_id/replay',
    doc: {
      summary: 'Send a webhook message again (same svix-id)',
      description: "In the resend SDK (webhooks.events.replay), not in Resend's published OpenAPI description.",
      addition: true,
      params: MESSAGE_PARAMS,
      response: { status: 200, schema: object({ object: constant('webhook_event'), id: string({ pattern: MESSAGE_ID.source }) }) },
    },
    async handler({ principal, params }) {
      const webhook = await findWebhook(db, principal.accountId, params.id);
      if (webhook.status !== 'enabled') throw validation('This webhook is disabled. Enable it to replay its events.');
      const message = await findMessage(db, webhook, params.message_id);
      await db.query(
        `UPDATE webhook_messages
            SET retry = CASE WHEN status IN ('success', 'failed') THEN false ELSE retry END,
                status = CASE WHEN status IN ('success', 'failed') THEN 'pending' ELSE status END,
                next_attempt_at = now()
          WHERE id = $1`,
        [message.id],
      );
      return { body: { object: 'webhook_event', id: message.id } };
    },
  };
}
