// GET /webhooks/:id/events/:message_id (the SDK's webhooks.events.get): one message, its
// state and the payload it is sent with.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { findMessage, findWebhook, MESSAGE_PARAMS } from './find-webhook.js';
import { MESSAGE_SCHEMA, messageDetail } from './webhook-view.js';

export function getMessage(db: Db): Route {
  return {
    method: 'GET',
    url: '/webhooks/:id/events/:message_id',
    doc: {
      summary: 'Retrieve a webhook message, with the payload it is sent with',
      description: "In the resend SDK (webhooks.events.get), not in Resend's published OpenAPI description.",
      addition: true,
      params: MESSAGE_PARAMS,
      response: { status: 200, schema: MESSAGE_SCHEMA },
    },
    async handler({ principal, params }) {
      const webhook = await findWebhook(db, principal.accountId, params.id);
      return { body: messageDetail(await findMessage(db, webhook, params.message_id)) };
    },
  };
}
