// GET /webhooks/:id/events/:message_id (the SDK's webhooks.events.get): one message, its
// state and the payload it is sent with.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { findMessage, findWebhook } from './find-webhook.js';
import { messageDetail } from './webhook-view.js';

export function getMessage(db: Db): Route {
  return {
    method: 'GET',
    url: '/webhooks/:id/events/:message_id',
    async handler({ principal, params }) {
      const webhook = await findWebhook(db, principal.accountId, params.id);
      return { body: messageDetail(await findMessage(db, webhook, params.message_id)) };
    },
  };
}
