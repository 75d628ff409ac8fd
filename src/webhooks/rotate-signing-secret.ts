// POST /webhooks/:id/signing-secret/rotate (the SDK's webhooks.rotateSigningSecret): a new
// secret at once; the previous one keeps signing beside it for a day, as Svix does, so
// receivers can switch without rejecting webhooks in between.
import type { Route } from '../api/route.js';
import { constant, object, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { newSigningSecret } from './webhook-fields.js';
import { findWebhook, WEBHOOK_PARAMS } from './find-webhook.js';
import { sealSecret } from '../secrets/keyring.js';

const PREVIOUS_SECRET_HOURS = 24;

export function rotateSigningSecret(db: Db): Route {
  return {
    method: 'POST',
    url: '/webhooks/:id/signing-secret/rotate',
    doc: {
      summary: "Rotate a webhook endpoint's signing secret (the previous one signs beside it for a day)",
      description: "In the resend SDK (webhooks.rotateSigningSecret), not in Resend's published OpenAPI description.",
      addition: true,
      params: WEBHOOK_PARAMS,
      response: { status: 200, schema: object({ object: constant('webhook'), id: uuid(), signing_secret: string() }) },
    },
    async handler({ principal, params }) {
      const secret = newSigningSecret();
      const id = await db.tx(async (q) => {
        const webhook = await findWebhook(q, principal.accountId, params.id, { lock: true });
        await q.query(
          `UPDATE webhooks SET previous_signing_secret = signing_secret, signing_secret = $2,
                  previous_secret_until = now() + $3 * interval '1 hour'
            WHERE id = $1`,
          [webhook.id, sealSecret(secret, 'webhook-signing-secret'), PREVIOUS_SECRET_HOURS],
        );
        return webhook.id as string;
      });
      return { body: { object: 'webhook', id, signing_secret: secret } };
    },
  };
}
