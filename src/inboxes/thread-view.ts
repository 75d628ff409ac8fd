// How threads and their messages read over the API (the SDK's InboxThread, InboxThreadSummary
// and InboxMessage). A thread's from/to/cc/bcc are its newest message's.
import { isoTimestamp } from '../api/format.js';
import { array, boolean, constant, integer, isoTime, nullable, object, oneOfValues, string, uuid } from '../api/schema.js';
import type { Queryable } from '../db/database.js';

export const INBOX_MESSAGE_FOLDERS = ['inbox', 'archive', 'spam', 'sent', 'trash'] as const;
export const MOVE_THREAD_FOLDERS = ['inbox', 'archive', 'spam', 'trash'] as const;

const THREAD_LABELS_SQL = `coalesce((SELECT jsonb_agg(jsonb_build_object('id', l.id, 'name', l.name, 'color', l.color) ORDER BY l.name, l.id)
    FROM inbox_thread_labels tl JOIN inbox_labels l ON l.id = tl.label_id WHERE tl.thread_id = t.id), '[]'::jsonb)`;

/** The columns threadItem reads, for `FROM inbox_threads t`. */
export const THREAD_COLUMNS = `t.id, t.subject, t.folder, t.read, t.assignee_email, t.email_count, t.has_attachment, t.last_message_at,
  (SELECT jsonb_build_object('from', m.from_display, 'to', m.to_addresses, 'cc', m.cc, 'bcc', m.bcc)
     FROM inbox_messages m WHERE m.thread_id = t.id ORDER BY m.created_at DESC, m.id DESC LIMIT 1) AS newest,
  ${THREAD_LABELS_SQL} AS labels,
  EXISTS (SELECT 1 FROM inbox_drafts d WHERE d.thread_id = t.id AND d.email_id IS NULL) AS has_draft`;

const LABEL = object({ id: uuid(), name: string(), color: string() });
const ASSIGNEE = nullable(string({ description: "Postline: the address of the teammate the thread is assigned to (PATCH's `assignee_email`); null: nobody." }));
export const THREAD_SCHEMA = object({
  id: uuid(),
  subject: nullable(string()),
  from: nullable(string()),
  to: array(string()),
  cc: array(string()),
  bcc: array(string()),
  labels: array(LABEL),
  email_count: integer(),
  has_attachment: boolean(),
  has_draft: boolean(),
  read: boolean(),
  received_at: isoTime(),
  folder: oneOfValues(INBOX_MESSAGE_FOLDERS),
  assignee_email: ASSIGNEE,
});
export const THREAD_SUMMARY_SCHEMA = object({
  object: constant('inbox_thread'),
  id: uuid(),
  subject: nullable(string()),
  folder: oneOfValues(INBOX_MESSAGE_FOLDERS),
  labels: array(LABEL),
  read: boolean(),
  assignee_email: ASSIGNEE,
});
export const LABEL_LIST_SCHEMA = object({ object: constant('list'), data: array(LABEL) });
export const MESSAGE_SCHEMA = object({
  id: uuid(),
  direction: oneOfValues(['inbound', 'outbound']),
  from: string(),
  to: array(string()),
  cc: array(string()),
  bcc: array(string()),
  reply_to: array(string()),
  subject: nullable(string()),
  message_id: nullable(string()),
  html: nullable(string()),
  text: nullable(string()),
  attachments: array(object({ id: uuid(), filename: nullable(string()), size: nullable(integer()) })),
  read: boolean(),
  received_at: isoTime(),
});

type Label = { id: string; name: string; color: string };

/** A thread as THREAD_ANSWER_COLUMNS selects it. */
export interface ThreadAnswerRow {
  id: string;
  subject: string | null;
  folder: (typeof INBOX_MESSAGE_FOLDERS)[number];
  read: boolean;
  assignee_email: string | null;
  labels: Label[];
}

/** A thread as THREAD_COLUMNS selects it. */
export interface ThreadItemRow extends ThreadAnswerRow {
  email_count: number;
  has_attachment: boolean;
  last_message_at: Date;
  /** The newest message's addresses; null when the thread has none. */
  newest: { from: string; to: string[]; cc: string[]; bcc: string[] } | null;
  has_draft: boolean;
}

export function threadItem(row: ThreadItemRow) {
  const newest = (row.newest ?? {}) as { from?: string; to?: string[]; cc?: string[]; bcc?: string[] };
  return {
    id: row.id,
    subject: row.subject || null,
    from: newest.from ?? null,
    to: newest.to ?? [],
    cc: newest.cc ?? [],
    bcc: newest.bcc ?? [],
    labels: row.labels,
    email_count: row.email_count,
    has_attachment: row.has_attachment,
    has_draft: row.has_draft,
    read: row.read,
    received_at: isoTimestamp(row.last_message_at),
    folder: row.folder,
    assignee_email: row.assignee_email ?? null,
  };
}

/** The SDK's InboxThreadSummary (as webhooks embed it). */
export async function threadSummary(q: Queryable, threadId: string) {
  const { assignee_email: _, ...summary } = await threadAnswer(q, threadId);
  return summary;
}

/** A thread as GET and PATCH answer it: the summary and Postline's `assignee_email`. */
export async function threadAnswer(q: Queryable, threadId: string) {
  return threadAnswerOf((await q.one<ThreadAnswerRow>(`SELECT ${THREAD_ANSWER_COLUMNS} FROM inbox_threads t WHERE t.id = $1`, [threadId]))!);
}

/** The columns threadAnswerOf reads, for `FROM inbox_threads t` (or an UPDATE's RETURNING). */
export const THREAD_ANSWER_COLUMNS = `t.id, t.subject, t.folder, t.read, t.assignee_email, ${THREAD_LABELS_SQL} AS labels`;

export function threadAnswerOf(row: ThreadAnswerRow) {
  return {
    object: 'inbox_thread' as const,
    id: row.id,
    subject: row.subject || null,
    folder: row.folder,
    labels: row.labels,
    read: row.read,
    assignee_email: row.assignee_email ?? null,
  };
}

export async function threadLabels(q: Queryable, threadId: string) {
  const row = await q.one<Pick<ThreadAnswerRow, 'labels'>>(`SELECT ${THREAD_LABELS_SQL} AS labels FROM inbox_threads t WHERE t.id = $1`, [threadId]);
  return { object: 'list' as const, data: row!.labels };
}

/** What messageView reads of an inbox_messages row. */
export interface MessageViewRow {
  id: string;
  direction: 'inbound' | 'outbound';
  from_display: string;
  to_addresses: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string | null;
  message_id: string | null;
  /** Left out of a message just filed (threading.ts): its event has no bodies. */
  html?: string | null;
  text?: string | null;
  attachments: { id: string; filename: string | null; size: number | null }[];
  read: boolean;
  created_at: Date;
}

export function messageView(row: MessageViewRow) {
  return {
    id: row.id,
    direction: row.direction,
    from: row.from_display,
    to: row.to_addresses,
    cc: row.cc,
    bcc: row.bcc,
    reply_to: row.reply_to,
    subject: row.subject ?? null,
    message_id: row.message_id ?? null,
    html: row.html ?? null,
    text: row.text ?? null,
    attachments: row.attachments,
    read: row.read,
    received_at: isoTimestamp(row.created_at),
  };
}
