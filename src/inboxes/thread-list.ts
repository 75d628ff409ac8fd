// Listing and searching an inbox's threads, most recently active first, by keyset on
// (last_message_at, id). Search is PostgreSQL full-text search over each message's subject
// (weighted first), addresses and text (inbox_messages.search, a GIN index): a thread matches
// when one of its messages matches every message condition, and names its newest such message.
import { ApiError } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { envelope, type Page } from '../api/pagination.js';
import type { Queryable } from '../db/database.js';
import type { InboxMessageRow } from './find-inbox.js';
import { INBOX_MESSAGE_FOLDERS, THREAD_COLUMNS, type ThreadItemRow, threadItem } from './thread-view.js';

type Folder = (typeof INBOX_MESSAGE_FOLDERS)[number];

interface ThreadFilters {
  folders: Folder[];
  labels?: string[];
  read?: boolean;
}

interface MessageConditions {
  query?: string;
  from?: string[];
  to?: string[];
  cc?: string[];
  bcc?: string[];
  hasAttachment?: boolean;
  startDate?: Date;
  endDate?: Date;
}

/** A listed thread; a search with message conditions adds the newest matching message. */
interface ListedThreadRow extends ThreadItemRow {
  matched_email_id?: string | null;
}

/** A search first probes this many of the newest threads: enough for a page when a word is common. */
const WALKED_THREADS = 500;
/** From this many matching messages on, a search walks every thread instead of sorting the matches' threads. */
const DENSE_MATCHES = 2000;

const invalid = (name: string, what: string) => new ApiError('invalid_parameter', `The \`${name}\` parameter must be ${what}.`);

/** A comma-separated list parameter (the SDK joins arrays with commas); undefined when absent. */
export function listParam(query: Record<string, string | undefined>, name: string): string[] | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (items.length === 0) throw invalid(name, 'a non-empty list');
  return items;
}

export function booleanParam(query: Record<string, string | undefined>, name: string): boolean | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  if (raw !== 'true' && raw !== 'false') throw invalid(name, '`true` or `false`');
  return raw === 'true';
}

export function dateParam(query: Record<string, string | undefined>, name: string): Date | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const date = new Date(raw);
  if (raw === '' || Number.isNaN(date.getTime())) throw invalid(name, 'an ISO 8601 date');
  return date;
}

export function threadFilters(query: Record<string, string | undefined>, defaultFolders: Folder[]): ThreadFilters {
  const folders = listParam(query, 'folders');
  for (const f of folders ?? [])
    if (!(INBOX_MESSAGE_FOLDERS as readonly string[]).includes(f)) throw invalid('folders', `a list of ${INBOX_MESSAGE_FOLDERS.join(', ')}`);
  const labels = listParam(query, 'labels');
  for (const l of labels ?? []) if (!isUuid(l)) throw invalid('labels', 'a list of label ids');
  return { folders: (folders as Folder[] | undefined) ?? defaultFolders, labels, read: booleanParam(query, 'read') };
}

export async function listThreads(q: Queryable, inboxId: string, filters: ThreadFilters, page: Page, search?: MessageConditions) {
  const args: unknown[] = [inboxId];
  const arg = (value: unknown) => `$${args.push(value)}`;
  const matches: string[] = [];
  if (search?.query) matches.push(`m.search @@ websearch_to_tsquery('english', ${arg(search.query)})`);
  if (search?.from) matches.push(`m.inbox_id = $1 AND m.from_address = ANY(${arg(search.from.map(lower))}::text[])`);
  for (const field of ['to', 'cc', 'bcc'] as const) {
    const column = field === 'to' ? 'to_addresses' : field;
    if (search?.[field]) matches.push(`m.${column} && ${arg(search[field]!.map(lower))}::text[]`);
  }
  if (search?.hasAttachment !== undefined) matches.push(`(jsonb_array_length(m.attachments) > 0) = ${arg(search.hasAttachment)}`);
  if (search?.startDate) matches.push(`m.created_at >= ${arg(search.startDate)}`);
  if (search?.endDate) matches.push(`m.created_at <= ${arg(search.endDate)}`);
  // A thread matches when one of its messages does. Which way round is fast depends on how many
  // messages match, which the planner cannot tell for a word its statistics do not hold: many
  // (a common word): walk the threads newest first and probe each one's messages, a page is
  // found in a few dozen threads; few (a rare word): fetch those few threads by id and sort
  // them, rather than probe every thread (5.7 s at 100,000 threads). So the newest
  // WALKED_THREADS threads are probed first; when they hold no full page, the matching
  // messages' threads are gathered, up to DENSE_MATCHES messages (past that, every thread is
  // probed). bench/inbox-threads.ts measures both. The thread names its newest matching
  // message, looked up for the page's rows only.
  const matching = matches.join(' AND ');
  const matchArgs = args.length;
  // One folder as an equality, so its index (inbox_id, folder, last_message_at) gives the order.
  const folder = filters.folders.length === 1 ? `t.folder = ${arg(filters.folders[0])}` : `t.folder = ANY(${arg(filters.folders)}::text[])`;
  const where = ['t.inbox_id = $1', folder];
  if (filters.labels)
    where.push(`EXISTS (SELECT 1 FROM inbox_thread_labels tl WHERE tl.thread_id = t.id AND tl.label_id = ANY(${arg(filters.labels)}::uuid[]))`);
  if (filters.read !== undefined) where.push(`t.read = ${arg(filters.read)}`);
  const backwards = page.before !== undefined;
  const cursor = page.after ?? page.before;
  if (cursor) {
    where.push(
      `(t.last_message_at, t.id) ${backwards ? '>' : '<'} (SELECT last_message_at, id FROM inbox_threads WHERE id = ${arg(cursor)} AND inbox_id = $1)`,
    );
  }
  const order = backwards ? 'ASC' : 'DESC';
  const orderBy = `ORDER BY t.last_message_at ${order}, t.id ${order}`;
  const limit = arg(page.limit + 1);
  const columns =
    matches.length === 0
      ? THREAD_COLUMNS
      : `${THREAD_COLUMNS}, (SELECT m.id FROM inbox_messages m WHERE m.thread_id = t.id AND ${matching} ORDER BY m.created_at DESC, m.id DESC LIMIT 1) AS matched_email_id`;
  const select = (conditions: string[], from = 'inbox_threads t') =>
    q.query<ListedThreadRow>(`SELECT ${columns} FROM ${from} WHERE ${conditions.join(' AND ')} ${orderBy} LIMIT ${limit}`, args);

  let rows: ListedThreadRow[];
  if (matches.length === 0) rows = await select(where);
  else {
    const probed = `EXISTS (SELECT 1 FROM inbox_messages m WHERE m.thread_id = t.id AND ${matching})`;
    const newest = `(SELECT t.* FROM inbox_threads t WHERE ${where.join(' AND ')} ${orderBy} LIMIT ${WALKED_THREADS}) t`;
    rows = await select([probed], newest);
    if (rows.length <= page.limit) {
      const found = await q.query<Pick<InboxMessageRow, 'thread_id'>>(
        `SELECT thread_id FROM inbox_messages m WHERE m.inbox_id = $1 AND ${matching} LIMIT ${DENSE_MATCHES}`,
        args.slice(0, matchArgs),
      );
      const threads = found.length < DENSE_MATCHES ? `t.id = ANY(${arg([...new Set(found.map((r) => r.thread_id))])}::uuid[])` : probed;
      rows = await select([threads, ...where]);
    }
  }
  const hasMore = rows.length > page.limit;
  const pageRows = rows.slice(0, page.limit);
  if (backwards) pageRows.reverse();
  return envelope(
    pageRows.map((row) => (search ? { ...threadItem(row), matched_email_id: row.matched_email_id ?? null } : threadItem(row))),
    hasMore,
  );
}

const lower = (s: string) => s.toLowerCase();
