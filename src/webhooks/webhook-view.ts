// How webhooks, their messages and attempts read over the API. Endpoints follow Resend's
// shapes (resend-compat-notes §2.10); messages and attempts the SDK's `webhooks.events`
// types (GetWebhookEventResponse, WebhookEventAttempt), with latency and counts added.
import { restTimestamp } from '../api/format.js';
import { array, constant, integer, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import { webhookPayload } from './payload.js';
import { WEBHOOK_EVENT_TYPES } from './webhook-fields.js';
import { openSecret } from '../secrets/keyring.js';

export const WEBHOOK_COLUMNS = 'id, endpoint, events, status, signing_secret, created_at';
export const MESSAGE_COLUMNS = 'id, event_type, status, attempts, next_attempt_at, created_at';
export const ATTEMPT_COLUMNS = 'id, status_code, latency_ms, response, created_at';

/** An endpoint as WEBHOOK_COLUMNS selects it. */
export interface WebhookRow {
  id: string;
  endpoint: string;
  events: string[];
  status: 'enabled' | 'disabled';
  /** Sealed (secrets/keyring.ts). */
  signing_secret: string;
  created_at: Date;
}

/** A message as MESSAGE_COLUMNS selects it. */
export interface MessageRow {
  id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  created_at: Date;
}

/** A message with its event's time and data (`event_*`, find-webhook.ts), for its payload. */
export interface MessageDetailRow extends MessageRow {
  event_created_at: Date;
  event_data: unknown;
}

/** A message as the views read it: with its endpoint's status, which its finder adds. */
export type WithEndpointStatus<M extends MessageRow> = M & { webhook_status: WebhookRow['status'] };

/** An attempt as ATTEMPT_COLUMNS selects it. */
export interface AttemptRow {
  id: string;
  status_code: number;
  latency_ms: number;
  response: string;
  created_at: Date;
}

/** webhookSummary's shape, for the routes' docs. */
export const WEBHOOK_SUMMARY_SCHEMA = object({
  id: uuid(),
  endpoint: string(),
  created_at: restTime(),
  status: oneOfValues(['enabled', 'disabled']),
  events: array(oneOfValues(WEBHOOK_EVENT_TYPES.map((e) => e.type))),
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

export function webhookSummary(row: WebhookRow) {
  return {
    id: row.id,
    endpoint: row.endpoint,
    created_at: restTimestamp(row.created_at),
    status: row.status,
    events: row.events,
  };
}

export function webhookDetail(row: WebhookRow) {
  return { object: 'webhook' as const, ...webhookSummary(row), signing_secret: openSecret(row.signing_secret, 'webhook-signing-secret') };
}

/**
 * pending: not tried yet; attempting: failed, retries scheduled; success; failed: no more
 * retries. A message whose endpoint is disabled keeps its state and has no next attempt.
 */
export function messageSummary(row: WithEndpointStatus<MessageRow>) {
  const open = row.status === 'pending' || row.status === 'attempting';
  return {
    id: row.id,
    type: row.event_type,
    created_at: restTimestamp(row.created_at),
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: open && row.webhook_status === 'enabled' ? restTimestamp(row.next_attempt_at) : null,
  };
}

/** The message with the exact payload it is sent with (`event_*` columns from `events`). */
export function messageDetail(row: WithEndpointStatus<MessageDetailRow>) {
  const payload = webhookPayload({ type: row.event_type, createdAt: row.event_created_at, data: row.event_data });
  return { object: 'webhook_event' as const, ...messageSummary(row), payload: JSON.parse(payload) };
}

export function attemptView(row: AttemptRow) {
  return {
    id: row.id,
    http_status_code: row.status_code,
    response: row.response,
    latency_ms: row.latency_ms,
    sent_at: restTimestamp(row.created_at),
  };
}
