// Finding an inbox by id or address (the SDK's `inboxId` or `emailAddress`, both in the path),
// and the rows under it, always within the caller's account: another account's inbox, thread,
// message, label or draft reads as "not found".
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Queryable } from '../db/database.js';
import type { INBOX_MESSAGE_FOLDERS, MessageViewRow } from './thread-view.js';

export interface InboxRow {
  id: string;
  account_id: string;
  domain_id: string;
  email_address: string;
  name: string;
  from_name: string | null;
  forwarding: boolean;
  agent_instructions: string | null;
  agent_tone: string | null;
  agent_actions: string[];
  created_at: Date;
  updated_at: Date;
}

export interface InboxThreadRow {
  id: string;
  inbox_id: string;
  account_id: string;
  subject: string | null;
  thread_subject: string;
  folder: (typeof INBOX_MESSAGE_FOLDERS)[number];
  read: boolean;
  email_count: number;
  has_attachment: boolean;
  last_message_at: Date;
  created_at: Date;
  assignee_email: string | null;
}

export interface InboxLabelRow {
  id: string;
  inbox_id: string;
  name: string;
  color: string;
  created_at: Date;
}

/** A draft of inbox_drafts: a reply has both its thread and the message it answers, a standalone draft neither. */
export type InboxDraftRow = {
  id: string;
  inbox_id: string;
  to_addresses: string[] | null;
  cc: string[];
  bcc: string[];
  subject: string | null;
  html: string | null;
  text: string | null;
  email_id: string | null;
  created_at: Date;
  updated_at: Date;
} & ({ thread_id: null; reply_to_email_id: null } | { thread_id: string; reply_to_email_id: string });

/** A message of inbox_messages. */
export interface InboxMessageRow extends MessageViewRow {
  thread_id: string;
  inbox_id: string;
  account_id: string;
  source_email_id: string;
  references_ids: string[];
  from_address: string;
  html: string | null;
  text: string | null;
  search: string;
}

interface InboxTableRows {
  inbox_threads: InboxThreadRow;
  inbox_labels: InboxLabelRow;
  inbox_drafts: InboxDraftRow;
}

export async function findInbox(q: Queryable, accountId: string, idOrAddress: string, options: { lock?: boolean } = {}): Promise<InboxRow> {
  const row = await q.one<InboxRow>(
    `SELECT * FROM inboxes WHERE account_id = $1 AND ${isUuid(idOrAddress) ? 'id = $2::uuid' : 'email_address = lower($2)'} ${options.lock ? 'FOR UPDATE' : ''}`,
    [accountId, idOrAddress],
  );
  if (!row) throw notFound('Inbox');
  return row;
}

/** A row of `table` (inbox_threads, inbox_labels, inbox_drafts) that belongs to the inbox; `id` a UUID the route's schema checked (path or body). */
export async function findInInbox<T extends keyof InboxTableRows>(
  q: Queryable,
  table: T,
  inboxId: string,
  id: string,
  what: string,
): Promise<InboxTableRows[T]> {
  const row = await q.one<InboxTableRows[T]>(`SELECT * FROM ${table} WHERE inbox_id = $1 AND id = $2`, [inboxId, id]);
  if (!row) throw notFound(what);
  return row;
}

/** One message of a thread; `id` a UUID the route's schema checked (path or body). */
export async function findThreadMessage(q: Queryable, threadId: string, id: string): Promise<InboxMessageRow> {
  const row = await q.one<InboxMessageRow>('SELECT * FROM inbox_messages WHERE thread_id = $1 AND id = $2', [threadId, id]);
  if (!row) throw notFound('Email');
  return row;
}
