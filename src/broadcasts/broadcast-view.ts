// How a broadcast reads over the API (resend-compat-notes §2.8): list items with the
// summary fields, GET with everything. `audience_id` is the deprecated name of segment_id
// and always carries the same value.
import { restTimestamp } from '../api/format.js';
import { array, constant, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { Row } from '../db/database.js';

export type BroadcastStatus = 'draft' | 'scheduled' | 'sending' | 'sent' | 'canceled';

export const BROADCAST_COLUMNS =
  'id, account_id, name, segment_id, topic_id, from_address, subject, reply_to, preview_text, html, text, status, ' +
  'scheduled_at, sent_at, cursor, recipients, created_at';

/**
 * The status on the wire, in Resend's words (the SDK declares draft, queued and sent): a
 * broadcast waiting for its time and one being sent are both `queued` (scheduled_at tells
 * them apart); `canceled` is Postline's own, for a send stopped for good.
 */
const WIRE_STATUS = { draft: 'draft', scheduled: 'queued', sending: 'queued', sent: 'sent', canceled: 'canceled' } as const;
const WIRE_STATUSES = ['draft', 'queued', 'sent', 'canceled'] as const;

/** broadcastSummary's shape, for the routes' docs. */
export const BROADCAST_SUMMARY_SCHEMA = object({
  id: uuid(),
  name: string({ description: 'The empty string when the broadcast was given no name (the SDK declares a string).' }),
  audience_id: nullable(uuid()),
  segment_id: nullable(uuid()),
  status: oneOfValues(WIRE_STATUSES),
  created_at: restTime(),
  scheduled_at: nullable(restTime()),
  sent_at: nullable(restTime()),
  topic_id: nullable(uuid()),
});
/** broadcastDetail's shape. */
export const BROADCAST_SCHEMA = object({
  object: constant('broadcast'),
  ...BROADCAST_SUMMARY_SCHEMA.properties,
  from: nullable(string()),
  subject: nullable(string()),
  reply_to: nullable(array(string())),
  preview_text: nullable(string()),
  html: nullable(string()),
  text: nullable(string()),
});

export function broadcastSummary(row: Row) {
  return {
    id: row.id as string,
    name: (row.name as string | null) ?? '',
    audience_id: (row.segment_id as string | null) ?? null,
    segment_id: (row.segment_id as string | null) ?? null,
    status: WIRE_STATUS[row.status as BroadcastStatus],
    created_at: restTimestamp(row.created_at)!,
    scheduled_at: restTimestamp(row.scheduled_at),
    sent_at: restTimestamp(row.sent_at),
    topic_id: (row.topic_id as string | null) ?? null,
  };
}

export function broadcastDetail(row: Row) {
  const { id, name, audience_id, segment_id, status, created_at, scheduled_at, sent_at, topic_id } = broadcastSummary(row);
  return {
    object: 'broadcast' as const,
    id,
    name,
    audience_id,
    segment_id,
    from: (row.from_address as string | null) ?? null,
    subject: (row.subject as string | null) ?? null,
    reply_to: (row.reply_to as string[] | null) ?? null,
    preview_text: (row.preview_text as string | null) ?? null,
    status,
    created_at,
    scheduled_at,
    sent_at,
    html: (row.html as string | null) ?? null,
    text: (row.text as string | null) ?? null,
    topic_id,
  };
}
