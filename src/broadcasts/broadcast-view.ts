// How a broadcast reads over the API (resend-compat-notes §2.8): list items with the
// summary fields, GET with everything. `audience_id` is the deprecated name of segment_id
// and always carries the same value.
import { restTimestamp } from '../api/format.js';
import { array, constant, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';

export type BroadcastStatus = 'draft' | 'scheduled' | 'sending' | 'sent' | 'canceled';

export const BROADCAST_COLUMNS =
  'id, account_id, name, segment_id, topic_id, from_address, subject, reply_to, preview_text, html, text, status, ' +
  'scheduled_at, sent_at, cursor, recipients, created_at';
/** A broadcast as BROADCAST_COLUMNS reads it. */
export interface BroadcastRow {
  id: string;
  account_id: string;
  name: string | null;
  segment_id: string | null;
  topic_id: string | null;
  from_address: string | null;
  subject: string | null;
  reply_to: string[] | null;
  preview_text: string | null;
  html: string | null;
  text: string | null;
  status: BroadcastStatus;
  scheduled_at: Date | null;
  sent_at: Date | null;
  cursor: string | null;
  recipients: number;
  created_at: Date;
}

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

export function broadcastSummary(row: BroadcastRow) {
  return {
    id: row.id,
    name: row.name ?? '',
    audience_id: row.segment_id ?? null,
    segment_id: row.segment_id ?? null,
    status: WIRE_STATUS[row.status],
    created_at: restTimestamp(row.created_at)!,
    scheduled_at: restTimestamp(row.scheduled_at),
    sent_at: restTimestamp(row.sent_at),
    topic_id: row.topic_id ?? null,
  };
}

export function broadcastDetail(row: BroadcastRow) {
  const { id, name, audience_id, segment_id, status, created_at, scheduled_at, sent_at, topic_id } = broadcastSummary(row);
  return {
    object: 'broadcast' as const,
    id,
    name,
    audience_id,
    segment_id,
    from: row.from_address ?? null,
    subject: row.subject ?? null,
    reply_to: row.reply_to ?? null,
    preview_text: row.preview_text ?? null,
    status,
    created_at,
    scheduled_at,
    sent_at,
    html: row.html ?? null,
    text: row.text ?? null,
    topic_id,
  };
}
