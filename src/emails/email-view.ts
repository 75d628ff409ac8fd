// How an email reads over the API (resend-compat-notes §2.1 `Email`): the list shows the
// summary, GET /emails/:id adds object, html, text and tags.
import { restTimestamp } from '../api/format.js';
import type { Row } from '../db/database.js';
import { textToBeSent } from './compose-deferred.js';

/** Never select `mime` for a view (it is the whole message), except as DETAIL_COLUMNS does. */
export const SUMMARY_COLUMNS = 'id, from_address, to_addresses, cc, bcc, reply_to, subject, created_at, scheduled_at, last_event, message_id, topic_id';
/**
 * `composing`: the message is composed at delivery and has not been yet (compose-deferred.ts);
 * an SMTP submission waiting to be signed (unsigned_mime) has its text part already.
 * `bodies_message`: a small SMTP submission's message (at most 64 KB and its signature), whose
 * html and text are read from it (get-email.ts, submitted-message.ts bodiesOfSubmitted).
 */
export const DETAIL_COLUMNS = `${SUMMARY_COLUMNS}, html, text, tags, mime IS NULL AND unsigned_mime IS NULL AS composing,
  CASE WHEN bodies_in_message THEN COALESCE(unsigned_mime, mime) END AS bodies_message`;

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
    // Before its message is composed, the text part it will be sent with.
    text: row.composing ? textToBeSent(row.html, row.text) : ((row.text as string | null) ?? null),
    tags: (row.tags as { name: string; value: string }[] | null) ?? [],
  };
}
