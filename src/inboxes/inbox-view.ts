// How an inbox reads over the API (the SDK's Inbox and GetInboxResponseSuccess): counts and
// last activity come from its threads, drafts and messages in the same query.
import { isoTimestamp } from '../api/format.js';
import { constant, integer, isoTime, nullable, object, string, uuid } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import type { InboxRow } from './find-inbox.js';

/** unread: unread threads in the inbox folder; drafts: drafts not sent; last_received: newest inbound message. */
const INBOX_SELECT = `SELECT i.*,
   (SELECT count(*) FROM inbox_threads t WHERE t.inbox_id = i.id AND t.folder = 'inbox' AND NOT t.read)::int AS unread,
   (SELECT count(*) FROM inbox_drafts d WHERE d.inbox_id = i.id AND d.email_id IS NULL)::int AS drafts,
   (SELECT max(m.created_at) FROM inbox_messages m WHERE m.inbox_id = i.id AND m.direction = 'inbound') AS last_received
  FROM inboxes i`;

/** An inbox as INBOX_SELECT reads it. */
interface InboxViewRow extends InboxRow {
  unread: number;
  drafts: number;
  last_received: Date | null;
}

export const INBOX_SUMMARY_SCHEMA = object({
  id: uuid(),
  name: nullable(string()),
  email_address: string(),
  from_name: nullable(string()),
  unread: integer(),
  last_received: nullable(isoTime()),
  created_at: isoTime(),
  updated_at: isoTime(),
});
export const INBOX_SCHEMA = object({
  object: constant('inbox'),
  ...INBOX_SUMMARY_SCHEMA.properties,
  domain_id: uuid(),
  receiving_address: nullable(string()),
  drafts: integer(),
});

export async function readInboxes(q: Queryable, where: string, params: unknown[]): Promise<InboxViewRow[]> {
  return q.query<InboxViewRow>(`${INBOX_SELECT} WHERE ${where}`, params);
}

export function inboxSummary(row: InboxViewRow) {
  return {
    id: row.id,
    name: row.name,
    email_address: row.email_address,
    from_name: row.from_name ?? null,
    unread: row.unread,
    last_received: isoTimestamp(row.last_received),
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

export function inboxDetail(row: InboxViewRow) {
  return {
    object: 'inbox' as const,
    ...inboxSummary(row),
    domain_id: row.domain_id,
    // Mail for the inbox is received at its own address: there is no second receiving address.
    receiving_address: row.email_address,
    drafts: row.drafts,
  };
}
