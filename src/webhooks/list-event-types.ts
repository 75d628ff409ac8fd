// GET /webhooks/event-types: the event types an endpoint may subscribe to, each with what it
// means, read from the one catalogue (events/catalogue.ts) as POST /webhooks checks them
// (webhook-fields.ts), so a client's event picker (the dashboard's) keeps no list of its own.
import { envelope, listOf } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { object, oneOfValues, string } from '../api/schema.js';
import { WEBHOOK_EVENT_TYPES } from './webhook-fields.js';

export function listEventTypes(): Route {
  return {
    method: 'GET',
    url: '/webhooks/event-types',
    doc: {
      summary: 'List the event types a webhook endpoint may subscribe to, with their descriptions',
      addition: true,
      response: { status: 200, schema: listOf(object({ type: oneOfValues(WEBHOOK_EVENT_TYPES.map((e) => e.type)), description: string() })) },
    },
    handler: async () => ({ body: envelope([...WEBHOOK_EVENT_TYPES], false) }),
  };
}
