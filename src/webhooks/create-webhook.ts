// POST /webhooks: a new enabled endpoint; 201 {object, id, signing_secret}. It receives the
// events recorded from now on (fan-out.ts compares created_at).
import crypto from 'node:crypto';
import type { Route } from '../api/route.js';
import { constant, object, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import type { DestinationPolicy } from '../egress/destination-policy.js';
import { CREATE_WEBHOOK_SCHEMA, checkEndpoint, distinctEvents, newSigningSecret, type WebhookFields } from './webhook-fields.js';
import { sealSecret } from '../secrets/keyring.js';

export function createWebhook(db: Db, destinations: DestinationPolicy): Route {
  return {
    method: 'POST',
    url: '/webhooks',
    doc: {
      summary: 'Create a webhook endpoint',
      body: CREATE_WEBHOOK_SCHEMA,
      response: { status: 201, schema: object({ object: constant('webhook'), id: uuid(), signing_secret: string() }) },
    },
    async handler({ principal, body }) {
      const fields = body as Required<Omit<WebhookFields, 'status'>>;
      const endpoint = checkEndpoint(fields.endpoint, destinations);
      const events = distinctEvents(fields.events);
      const id = crypto.randomUUID();
      const secret = newSigningSecret();
      await db.query(`INSERT INTO webhooks (id, account_id, endpoint, events, signing_secret) VALUES ($1, $2, $3, $4, $5)`, [
        id,
        principal.accountId,
        endpoint,
        events,
        sealSecret(secret, 'webhook-signing-secret'),
      ]);
      return { status: 201, body: { object: 'webhook', id, signing_secret: secret } };
    },
  };
}
