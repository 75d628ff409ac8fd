// How an email reads over the API (resend-compat-notes §2.1 `Email`): the list shows the
// summary, GET /emails/:id adds object, html, text and tags.
import { restTimestamp } from '../api/format.js';
import { array, constant, type JsonSchema, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import { type StoredMessage, VIEW_MESSAGE_COLUMNS } from '../email-row/stored-message.js';
import { EMAIL_EVENTS } from '../events/catalogue.js';
import { textToBeSent } from './compose-deferred.js';

/** Never select `mime` for a view (it is the whole message), except as DETAIL_COLUMNS does. */
export const SUMMARY_COLUMNS = 'id, from_address, to_addresses, cc, bcc, reply_to, subject, created_at, scheduled_at, last_event, message_id, topic_id';
/** With the message's state and, for a small SMTP submission, the message its html and text are read from (get-email.ts). */
export const DETAIL_COLUMNS = `${SUMMARY_COLUMNS}, html, text, tags, ${VIEW_MESSAGE_COLUMNS}`;

/** The columns SUMMARY_COLUMNS selects. */
export interface EmailSummaryRow {
  id: string;
  from_address: string;
  to_addresses: string[];
  cc: string[] | null;
  bcc: string[] | null;
  reply_to: string[] | null;
  subject: string;
  created_at: Date;
  scheduled_at: Date | null;
  last_event: string;
  message_id: string;
  topic_id: string | null;
}

/** The columns DETAIL_COLUMNS selects. */
export interface EmailDetailRow extends EmailSummaryRow {
  html: string | null;
  text: string | null;
  tags: { name: string; value: string }[] | null;
  message_state: StoredMessage['state'];
  bodies_message: Buffer | null;
}

export const LAST_EVENTS = Object.values(EMAIL_EVENTS).flatMap((e) => (e.lastEvent ? [e.lastEvent] : []));
const addresses = array(string());

/** emailSummary's shape, for the routes' docs. */
export const EMAIL_SUMMARY_SCHEMA = object({
  id: uuid(),
  to: addresses,
  from: string(),
  created_at: restTime(),
  subject: string(),
  bcc: nullable(addresses),
  cc: nullable(addresses),
  reply_to: nullable(addresses),
  last_event: oneOfValues(LAST_EVENTS),
  scheduled_at: nullable(restTime()),
  message_id: string(),
  topic_id: nullable(uuid()),
});

/** emailDetail's shape. */
export const EMAIL_SCHEMA: JsonSchema = object({
  object: constant('email'),
  ...EMAIL_SUMMARY_SCHEMA.properties,
  html: nullable(string()),
  text: nullable(string()),
  tags: array(object({ name: string(), value: string() })),
});

export function emailSummary(row: EmailSummaryRow) {
  return {
    id: row.id,
    to: row.to_addresses,
    from: row.from_address,
    created_at: restTimestamp(row.created_at),
    subject: row.subject,
    bcc: row.bcc ?? null,
    cc: row.cc ?? null,
    reply_to: row.reply_to ?? null,
    last_event: row.last_event,
    scheduled_at: restTimestamp(row.scheduled_at),
    message_id: row.message_id,
    topic_id: row.topic_id ?? null,
  };
}

export function emailDetail(row: EmailDetailRow) {
  return {
    object: 'email' as const,
    ...emailSummary(row),
    html: row.html ?? null,
    // Before its message is composed, the text part it will be sent with (an SMTP submission has its own).
    text: row.message_state === 'to_compose' ? textToBeSent(row.html, row.text) : (row.text ?? null),
    tags: row.tags ?? [],
  };
}
