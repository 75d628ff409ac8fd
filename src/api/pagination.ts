// Resend's list envelope and cursor pagination: `limit` 1..100, `after`/`before` exclusive
// id cursors, newest first. One keyset query serves every list (created_at, id).
import type { Queryable } from '../db/database.js';
import type { Route, RouteDoc } from './route.js';
import { validation } from './errors.js';
import { array, boolean, constant, integer, type JsonSchema, object, string } from './schema.js';

export interface Page {
  limit: number;
  after?: string;
  before?: string;
}

/**
 * What a list's `after`/`before` cursor is: an id (a uuid, as Resend's), or the serial number
 * of a row written in order (an email's events and delivery attempts, listed as a timeline).
 */
type CursorKind = 'uuid' | 'serial';
// At most 18 digits: every such number fits PostgreSQL's bigint, so a cursor never errs there.
const SERIAL = /^[1-9][0-9]{0,17}$/;

const LIMIT_ERROR = {
  name: 'validation_error',
  message: 'The pagination limit must be a number between 1 and 100. See https://resend.com/docs/pagination for more information.',
} as const;

/** Resend's error for a cursor that is not an id of the list. */
export const cursorError = (name: 'after' | 'before') => ({ name: 'invalid_parameter', message: `The \`${name}\` parameter must be a valid id.` }) as const;

/**
 * The page a list's query asks for. Its parameters were checked by pageQuery's schemas before
 * the handler ran (http/routes.ts); only the rule that joins two of them is checked here.
 */
export function parsePage(query: Record<string, string | undefined>, options: { defaultLimit?: number } = {}): Page {
  const { after, before } = query;
  if (after !== undefined && before !== undefined) {
    throw validation('You can only use either `after` or `before`, not both.');
  }
  return { limit: query.limit === undefined ? (options.defaultLimit ?? 20) : Number(query.limit), after, before };
}

/** The query parameters parsePage reads, for a route's doc: their schemas are their check. */
export function pageQuery(defaultLimit = 20, cursor: CursorKind = 'uuid'): Record<string, JsonSchema> {
  const id = (name: 'after' | 'before', description: string) =>
    string({ ...(cursor === 'serial' ? { pattern: SERIAL.source } : { format: 'uuid' }), description, 'x-error': cursorError(name) });
  return {
    limit: integer({ minimum: 1, maximum: 100, default: defaultLimit, description: 'Items per page.', 'x-error': LIMIT_ERROR }),
    after: id('after', 'The id after which the page starts (not with `before`).'),
    before: id('before', 'The id before which the page ends (not with `after`).'),
  };
}

/** Resend's list envelope of `item`s. */
export const listOf = (item: JsonSchema): JsonSchema => object({ object: constant('list'), has_more: boolean(), data: array(item) });

/** The doc of a paginated list of `item`s: pagination parameters (and any `query` of its own) in, the envelope out. */
export function listDoc(
  summary: string,
  item: JsonSchema,
  options: { defaultLimit?: number; query?: Record<string, JsonSchema>; cursor?: CursorKind } = {},
): RouteDoc {
  return { summary, query: { ...options.query, ...pageQuery(options.defaultLimit, options.cursor) }, response: { status: 200, schema: listOf(item) } };
}

export interface ListEnvelope<T> {
  object: 'list';
  has_more: boolean;
  data: T[];
}

/**
 * Lists rows of `table` where `where` holds (with `params`), newest first, by keyset on
 * (created_at, id). `columns` is the select list, `R` the row it selects. The cursor row must
 * satisfy `where` too, so another account's id as a cursor finds nothing (or `cursorWhere`, the
 * account alone, for a filtered list whose cursor row may have stopped matching the filters).
 */
export async function listPage<R extends object>(
  q: Queryable,
  options: { table: string; columns: string; where: string; params: unknown[]; page: Page; cursorWhere?: string },
): Promise<{ rows: R[]; hasMore: boolean }> {
  const { table, columns, where, params, page, cursorWhere = where } = options;
  const args = [...params];
  let cursorClause = '';
  const backwards = page.before !== undefined;
  const cursor = page.after ?? page.before;
  if (cursor) {
    args.push(cursor);
    const op = backwards ? '>' : '<';
    cursorClause = `AND (created_at, id) ${op} (SELECT created_at, id FROM ${table} WHERE id = $${args.length} AND ${cursorWhere})`;
  }
  args.push(page.limit + 1);
  const order = backwards ? 'ASC' : 'DESC';
  const rows = await q.query<R>(
    `SELECT ${columns} FROM ${table} WHERE ${where} ${cursorClause}
     ORDER BY created_at ${order}, id ${order} LIMIT $${args.length}`,
    args,
  );
  const hasMore = rows.length > page.limit;
  const pageRows = rows.slice(0, page.limit);
  if (backwards) pageRows.reverse();
  return { rows: pageRows, hasMore };
}

export function envelope<T>(data: T[], hasMore: boolean): ListEnvelope<T> {
  return { object: 'list', has_more: hasMore, data };
}

/**
 * Lists rows of `table` where `where` holds (with `params`: one parent's rows) in ascending
 * order of `key`, by keyset: the order they were written in (`attempted_at, id`: a timeline), or
 * their `position` (an email's attachments). `after`/`before` are ids of rows of the same parent:
 * the cursor row must satisfy `where` too, so another parent's id finds nothing. `R` is the row
 * `columns` selects.
 */
export async function listOldestFirst<R extends object>(
  q: Queryable,
  options: { table: string; columns: string; where: string; params: unknown[]; key: readonly string[]; page: Page },
): Promise<{ rows: R[]; hasMore: boolean }> {
  const { table, columns, where, params, key, page } = options;
  const args = [...params];
  const keyList = key.join(', ');
  const backwards = page.before !== undefined;
  let cursorClause = '';
  const cursor = page.after ?? page.before;
  if (cursor) {
    args.push(cursor);
    cursorClause = `AND (${keyList}) ${backwards ? '<' : '>'} (SELECT ${keyList} FROM ${table} WHERE id = $${args.length} AND ${where})`;
  }
  args.push(page.limit + 1);
  const order = key.map((column) => `${column} ${backwards ? 'DESC' : 'ASC'}`).join(', ');
  const rows = await q.query<R>(`SELECT ${columns} FROM ${table} WHERE ${where} ${cursorClause} ORDER BY ${order} LIMIT $${args.length}`, args);
  const hasMore = rows.length > page.limit;
  const pageRows = rows.slice(0, page.limit);
  if (backwards) pageRows.reverse();
  return { rows: pageRows, hasMore };
}

/**
 * GET `url`: the caller's rows of `table` (by `account_id`), newest first, keyset-paginated
 * (`defaultLimit` per page without `limit`: 20 on Resend's newer lists, 100 on its older ones,
 * which return everything), in Resend's list envelope, each row (`R`, what `columns` selects) as
 * `view` shows the page.
 */
export function accountList<R extends object>(
  db: Queryable,
  options: {
    url: string;
    table: string;
    columns: string;
    defaultLimit?: number;
    view: (rows: R[]) => unknown[] | Promise<unknown[]>;
    /** The route's summary and the schema of one item `view` returns. */
    doc: { summary: string; item: JsonSchema };
  },
): Route {
  return {
    method: 'GET',
    url: options.url,
    doc: listDoc(options.doc.summary, options.doc.item, { defaultLimit: options.defaultLimit }),
    async handler({ principal, query }) {
      const { rows, hasMore } = await listPage<R>(db, {
        table: options.table,
        columns: options.columns,
        where: 'account_id = $1',
        params: [principal.accountId],
        page: parsePage(query, { defaultLimit: options.defaultLimit }),
      });
      return { body: envelope(await options.view(rows), hasMore) };
    },
  };
}
