// Finding an inbox by id or address (the SDK's `inboxId` or `emailAddress`, both in the path),
// and the rows under it, always within the caller's account: another account's inbox, thread,
// message, label or draft reads as "not found".
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Queryable, Row } from '../db/database.js';

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

export async function findInbox(q: Queryable, accountId: string, idOrAddress: string, options: { lock?: boolean } = {}): Promise<InboxRow> {
  const row = await q.one<InboxRow>(
    `SELECT * FROM inboxes WHERE account_id = $1 AND ${isUuid(idOrAddress) ? 'id = $2::uuid' : 'email_address = lower($2)'} ${options.lock ? 'FOR UPDATE' : ''}`,
    [accountId, idOrAddress],
  );
  if (!row) throw notFound('Inbox');
  return row;
}

/** A row of `table` (inbox_threads, inbox_labels, inbox_drafts) that belongs to the inbox. */
export async function findInInbox(
  q: Queryable,
  table: 'inbox_threads' | 'inbox_labels' | 'inbox_drafts',
  inboxId: string,
  id: string,
  what: string,
): Promise<Row> {
  if (!isUuid(id)) throw notFound(what);
  const row = await q.one(`SELECT * FROM ${table} WHERE inbox_id = $1 AND id = $2`, [inboxId, id]);
  if (!row) throw notFound(what);
  return row;
}

/** One message of a thread. */
export async function findThreadMessage(q: Queryable, threadId: string, id: string): Promise<Row> {
  if (!isUuid(id)) throw notFound('Email');
  const row = await q.one('SELECT * FROM inbox_messages WHERE thread_id = $1 AND id = $2', [threadId, id]);
  if (!row) throw notFound('Email');
  return row;
}
