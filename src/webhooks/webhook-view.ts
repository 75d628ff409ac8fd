// How webhooks, their messages and attempts read over the API. Endpoints follow Resend's
// shapes (resend-compat-notes §2.10); messages and attempts the SDK's `webhooks.events`
// types (GetWebhookEventResponse, WebhookEventAttempt), with latency and counts added.
import { restTimestamp } from '../api/format.js';
import { array, constant, integer, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { Row } from '../db/database.js';
import { webhookPayload } from './payload.js';
import { openSecret } from '../secrets/keyring.js';

export const WEBHOOK_COLUMNS = 'id, endpoint, events, status, signing_secret, created_at';
export const MESSAGE_COLUMNS = 'id, event_type, status, attempts, next_attempt_at, created_at';
export const ATTEMPT_COLUMNS = 'id, status_code, latency_ms, response, created_at';

/** webhookSummary's shape, for the routes' docs. */
export const WEBHOOK_SUMMARY_SCHEMA = object({
  id: uuid(),
  endpoint: string(),
  created_at: restTime(),
  status: oneOfValues(['enabled', 'disabled']),
  events: array(string()),
});
export const WEBHOOK_SCHEMA = object({ object: constant('webhook'), ...WEBHOOK_SUMMARY_SCHEMA.properties, signing_secret: string() });

/** messageSummary's shape. */
export const MESSAGE_SUMMARY_SCHEMA = object({
  id: string({ pattern: '^msg_' }),
  type: string(),
  created_at: restTime(),
  status: oneOfValues(['pending', 'attempting', 'success', 'failed']),
  attempts: integer(),
  next_attempt_at: nullable(restTime()),
});
export const MESSAGE_SCHEMA = object({
  object: constant('webhook_event'),
  ...MESSAGE_SUMMARY_SCHEMA.properties,
  payload: object({ type: string(), created_at: string(), data: { type: 'object' } }),
});

/** attemptView's shape. */
export const ATTEMPT_SCHEMA = object({
  id: uuid(),
  http_status_code: integer({ description: '0 when no HTTP response came back.' }),
  response: string(),
  latency_ms: integer(),
  sent_at: restTime(),
});

export function webhookSummary(row: Row) {
  return {
    id: row.id as string,
    endpoint: row.endpoint as string,
    created_at: restTimestamp(row.created_at),
    status: row.status as 'enabled' | 'disabled',
    events: row.events as string[],
  };
}

export function webhookDetail(row: Row) {
  return { object: 'webhook' as const, ...webhookSummary(row), signing_secret: openSecret(row.signing_secret, 'webhook-signing-secret') };
}

/**
 * pending: not tried yet; attempting: failed, retries scheduled; success; failed: no more
 * retries. A message whose endpoint is disabled keeps its state and has no next attempt.
 */
export function messageSummary(row: Row) {
  const open = row.status === 'pending' || row.status === 'attempting';
  return {
    id: row.id as string,
    type: row.event_type as string,
    created_at: restTimestamp(row.created_at),
    status: row.status as string,
    attempts: row.attempts as number,
    next_attempt_at: open && row.webhook_status === 'enabled' ? restTimestamp(row.next_attempt_at) : null,
  };
}

/** The message with the exact payload it is sent with (`event_*` columns from `events`). */
export function messageDetail(row: Row) {
  const payload = webhookPayload({ type: row.event_type, createdAt: row.event_created_at, data: row.event_data });
  return { object: 'webhook_event' as const, ...messageSummary(row), payload: JSON.parse(payload) };
}

export function attemptView(row: Row) {
  return {
    id: row.id as string,
    http_status_code: row.status_code as number,
    response: row.response as string,
    latency_ms: row.latency_ms as number,
    sent_at: restTimestamp(row.created_at),
  };
}
