// How an email reads over the API (resend-compat-notes §2.1 `Email`): the list shows the
// summary, GET /emails/:id adds object, html, text and tags.
import { restTimestamp } from '../api/format.js';
import { array, constant, type JsonSchema, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { Row } from '../db/database.js';
import { VIEW_MESSAGE_COLUMNS } from '../email-row/stored-message.js';
import { EMAIL_EVENTS } from '../events/catalogue.js';
import { textToBeSent } from './compose-deferred.js';

/** Never select `mime` for a view (it is the whole message), except as DETAIL_COLUMNS does. */
export const SUMMARY_COLUMNS = 'id, from_address, to_addresses, cc, bcc, reply_to, subject, created_at, scheduled_at, last_event, message_id, topic_id';
/** With the message's state and, for a small SMTP submission, the message its html and text are read from (get-email.ts). */
export const DETAIL_COLUMNS = `${SUMMARY_COLUMNS}, html, text, tags, ${VIEW_MESSAGE_COLUMNS}`;

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

export function emailSummary(row: Row) {
  return {
    id: row.id as string,
    to: row.to_addresses as string[],
    from: row.from_address as string,
    created_at: restTimestamp(row.created_at),
    subject: row.subject as string,
    bcc: (row.bcc as string[] | null) ?? null,
    cc: (row.cc as string[] | null) ?? null,
    reply_to: (row.reply_to as string[] | null) ?? null,
    last_event: row.last_event as string,
    scheduled_at: restTimestamp(row.scheduled_at),
    message_id: row.message_id as string,
    topic_id: (row.topic_id as string | null) ?? null,
  };
}

export function emailDetail(row: Row) {
  return {
    object: 'email' as const,
    ...emailSummary(row),
    html: (row.html as string | null) ?? null,
    // Before its message is composed, the text part it will be sent with (an SMTP submission has its own).
    text: row.message_state === 'to_compose' ? textToBeSent(row.html, row.text) : ((row.text as string | null) ?? null),
    tags: (row.tags as { name: string; value: string }[] | null) ?? [],
  };
}
