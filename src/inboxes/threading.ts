// The one writer of inbox_messages, and of a thread's counters with them: a message, received
// or sent, joins the thread it answers, or starts one. How a thread is found, in order:
//   1. by reference: the newest message of the inbox whose Message-ID is the new message's
//      In-Reply-To or one of its References (RFC 5322 §3.6.4);
//   2. by subject, the documented fallback for clients that drop those headers: a message whose
//      subject starts with a reply or forward prefix (Re:, Fwd:, AW:, SV:, …) joins the most
//      recently active thread of the inbox with the same subject (prefixes removed, case
//      ignored), active in the last 30 days, in which its sender already took part;
//   3. otherwise a new thread: in `inbox` when received, in `sent` when sent.
// Two strangers writing "Hello" never share a thread: a plain subject never matches.
// Each message makes inbox.email.received or inbox.email.sent (and inbox.thread.created for a
// new thread), which its caller records through the one event writer in the same transaction.
import crypto from 'node:crypto';
import type { Queryable } from '../db/database.js';
import type { NewEvent } from '../events/record-events.js';
import { eventEmail } from './event-objects.js';
import { THREAD_ANSWER_COLUMNS, type ThreadAnswerRow, threadAnswerOf } from './thread-view.js';

interface NewMessage {
  direction: 'inbound' | 'outbound';
  /** The /emails/receiving id of a received message, the /emails id of a sent one. */
  sourceEmailId: string;
  messageId: string | null;
  /** The Message-IDs it refers to: References then In-Reply-To, with angle brackets. */
  references: string[];
  fromDisplay: string;
  fromAddress: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string | null;
  html: string | null;
  text: string | null;
  attachments: { id: string; filename: string | null; size: number | null }[];
}

const REPLY_PREFIX = /^\s*((re|fwd?|aw|sv|wg|tr|antw)\s*(\[\d+\])?\s*:\s*)+/i;
/** tsvector holds at most 1 MB; a message's first 200,000 characters are what search reads. */
const MAX_SEARCHED_TEXT = 200_000;
const SUBJECT_FALLBACK_DAYS = 30;

/** The subject threads are matched on: no reply/forward prefixes, spaces collapsed, lower case. */
function threadSubject(subject: string | null): string {
  return (subject ?? '').replace(REPLY_PREFIX, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

const isReplySubject = (subject: string | null) => REPLY_PREFIX.test(subject ?? '');

/** The Message-IDs (`<…>`) in In-Reply-To / References header values, in order, once each. */
export function messageIdsIn(...values: (string | null | undefined)[]): string[] {
  const ids = values.flatMap((v) => v?.match(/<[^<>\s]+>/g) ?? []);
  return [...new Set(ids)];
}

/** The thread the message joined or opened, as THREAD_ANSWER_COLUMNS reads it, and the message's time. */
interface FiledRow extends ThreadAnswerRow {
  created: boolean;
  message_created_at: Date;
}

/** What filing a message made: its ids, whether it opened the thread, and its events, for the caller to record with its own. */
interface Filed {
  threadId: string;
  messageId: string;
  created: boolean;
  events: NewEvent[];
}

/**
 * Adds `message` to the inbox: to `threadId` when the caller knows it (a reply sent from the
 * thread), else to the thread it answers (by reference, then by subject), else to a new one.
 * One statement finds the thread, opens it with its counters already counted or counts the
 * message on it, files the message, and answers what the events embed; the caller records
 * the events in its own recordEvents call (one per transaction).
 */
export async function addMessage(q: Queryable, inbox: { id: string; account_id: string }, message: NewMessage, threadId?: string): Promise<Filed> {
  const newThread = crypto.randomUUID();
  const id = crypto.randomUUID();
  const addresses = [message.fromDisplay, ...message.to, ...message.cc, ...message.bcc].join(' ');
  const body = (message.text ?? stripTags(message.html ?? '')).slice(0, MAX_SEARCHED_TEXT);
  const inbound = message.direction === 'inbound';
  const [filed] = await q.query<FiledRow>(
    `WITH target AS (
       SELECT coalesce($23::uuid,
         (SELECT m.thread_id FROM inbox_messages m WHERE m.inbox_id = $3 AND m.message_id = ANY($8::text[]) ORDER BY m.created_at DESC LIMIT 1),
         (SELECT t.id FROM inbox_threads t
           WHERE $25::boolean AND t.inbox_id = $3 AND t.thread_subject = $26 AND t.last_message_at > now() - make_interval(days => $24)
             AND EXISTS (SELECT 1 FROM inbox_messages m WHERE m.thread_id = t.id
                          AND (lower($10) = m.from_address OR lower($10) = ANY(m.to_addresses) OR lower($10) = ANY(m.cc)))
           ORDER BY t.last_message_at DESC LIMIT 1)) AS thread_id
     ), opened AS (
       INSERT INTO inbox_threads AS t (id, inbox_id, account_id, subject, thread_subject, folder, read, email_count, has_attachment)
       SELECT $2::uuid, $3::uuid, $4::uuid, $15::text, $26::text, CASE WHEN $19::boolean THEN 'sent' ELSE 'inbox' END, $19::boolean, 1, $22::boolean
         FROM target WHERE target.thread_id IS NULL
       RETURNING ${THREAD_ANSWER_COLUMNS}
     ), added AS (
       INSERT INTO inbox_messages (id, thread_id, inbox_id, account_id, direction, source_email_id, message_id, references_ids,
         from_display, from_address, to_addresses, cc, bcc, reply_to, subject, html, text, attachments, read, search)
       VALUES ($1, (SELECT coalesce(thread_id, $2) FROM target), $3, $4, $5, $6, $7, $8, $9, lower($10), $11, $12, $13, $14, $15, $16, $17, $18, $19,
         setweight(to_tsvector('english', coalesce($15, '')), 'A') || to_tsvector('english', $20) || to_tsvector('english', $21))
       RETURNING created_at
     ), joined AS (
       UPDATE inbox_threads t SET email_count = email_count + 1, has_attachment = has_attachment OR $22, last_message_at = now(),
         read = CASE WHEN $19 THEN read ELSE false END,
         folder = CASE WHEN NOT $19 AND folder IN ('sent', 'archive') THEN 'inbox' ELSE folder END
         FROM target WHERE t.id = target.thread_id
       RETURNING ${THREAD_ANSWER_COLUMNS}
     )
     SELECT thread.*, thread.id = $2 AS created, (SELECT created_at FROM added) AS message_created_at
       FROM (SELECT * FROM opened UNION ALL SELECT * FROM joined) AS thread`,
    [
      id,
      newThread,
      inbox.id,
      inbox.account_id,
      message.direction,
      message.sourceEmailId,
      message.messageId,
      message.references,
      message.fromDisplay,
      message.fromAddress,
      message.to.map(lower),
      message.cc.map(lower),
      message.bcc.map(lower),
      message.replyTo.map(lower),
      message.subject,
      message.html,
      message.text,
      JSON.stringify(message.attachments),
      !inbound,
      addresses,
      body,
      message.attachments.length > 0,
      threadId ?? null,
      SUBJECT_FALLBACK_DAYS,
      isReplySubject(message.subject),
      threadSubject(message.subject),
    ],
    'inbox-file-message',
  );
  const thread = filed!.id;
  const created = filed!.created;
  const { assignee_email: _, ...summary } = threadAnswerOf(filed!);
  const email = eventEmail({
    id,
    direction: message.direction,
    from_display: message.fromDisplay,
    to_addresses: message.to.map(lower),
    cc: message.cc.map(lower),
    bcc: message.bcc.map(lower),
    reply_to: message.replyTo.map(lower),
    subject: message.subject,
    message_id: message.messageId,
    attachments: message.attachments,
    read: !inbound,
    created_at: filed!.message_created_at,
  });
  const data = { inbox_id: inbox.id, thread_id: thread, email_id: id, thread: summary, email };
  const events: NewEvent[] = [
    ...(created ? [{ accountId: inbox.account_id, type: 'inbox.thread.created' as const, data: { source: 'system' as const, ...data } }] : []),
    inbound
      ? { accountId: inbox.account_id, type: 'inbox.email.received' as const, data: { source: 'system' as const, ...data } }
      : { accountId: inbox.account_id, type: 'inbox.email.sent' as const, data: { source: 'api' as const, ...data } },
  ];
  return { threadId: thread, messageId: id, created, events };
}

const lower = (s: string) => s.toLowerCase();
const stripTags = (html: string) => html.replace(/<style[\s\S]*?<\/style>|<script[\s\S]*?<\/script>/gi, ' ').replace(/<[^>]*>/g, ' ');
