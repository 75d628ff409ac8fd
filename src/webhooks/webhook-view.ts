// How webhooks, their messages and attempts read over the API. Endpoints follow Resend's
// shapes (resend-compat-notes §2.10); messages and attempts the SDK's `webhooks.events`
// types (GetWebhookEventResponse, WebhookEventAttempt), with latency and counts added.
import { restTimestamp } from '../api/format.js';
import type { Row } from '../db/database.js';
import { webhookPayload } from './payload.js';

export const WEBHOOK_COLUMNS = 'id, endpoint, events, status, signing_secret, created_at';
export const MESSAGE_COLUMNS = 'id, event_type, status, attempts, next_attempt_at, created_at';
export const ATTEMPT_COLUMNS = 'id, status_code, latency_ms, response, created_at';

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
  return { object: 'webhook' as const, ...webhookSummary(row), signing_secret: row.signing_secret as string };
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
