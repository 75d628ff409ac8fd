// The /webhooks routes, one file per operation, for server.ts to mount: managing endpoints
// (Resend's create/list/get/update/remove and rotate-signing-secret; the event types one may
// subscribe to) and their delivery log
// (the SDK's webhooks.events.*: messages, attempts, replay).
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import type { DestinationPolicy } from '../egress/destination-policy.js';
import { createWebhook } from './create-webhook.js';
import { getMessage } from './get-message.js';
import { getWebhook } from './get-webhook.js';
import { listAttempts } from './list-attempts.js';
import { listEventTypes } from './list-event-types.js';
import { listMessages } from './list-messages.js';
import { listWebhooks } from './list-webhooks.js';
import { deleteWebhook } from './delete-webhook.js';
import { replayMessage } from './replay-message.js';
import { rotateSigningSecret } from './rotate-signing-secret.js';
import { updateWebhook } from './update-webhook.js';

export function webhookRoutes(db: Db, destinations: DestinationPolicy): Route[] {
  return [
    createWebhook(db, destinations),
    listWebhooks(db),
    listEventTypes(),
    getWebhook(db),
    updateWebhook(db, destinations),
    deleteWebhook(db),
    rotateSigningSecret(db),
    listMessages(db),
    getMessage(db),
    listAttempts(db),
    replayMessage(db),
  ];
}
