// POST /webhooks: a new enabled endpoint; 201 {object, id, signing_secret}. It receives the
// events recorded from now on (fan-out.ts compares created_at).
import crypto from 'node:crypto';
import type { Route } from '../api/route.js';
import { constant, object, string, uuid } from '../api/schema.js';
import { objectBody, rejectUnknown } from '../api/validate.js';
import type { Db } from '../db/database.js';
import type { DestinationPolicy } from '../egress/destination-policy.js';
import { newSigningSecret, CREATE_WEBHOOK_SCHEMA, parseEndpoint, parseEvents } from './webhook-fields.js';
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
    async handler({ principal, body: raw }) {
      const body = objectBody(raw);
      rejectUnknown(body, ['endpoint', 'events']);
      const endpoint = parseEndpoint(body, true, destinations)!;
      const events = parseEvents(body, true)!;
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
