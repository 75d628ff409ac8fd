// Pagination of a broadcast's recipients and clicked links, as Resend pages them: each row's
// `id` is an opaque cursor (base64url of "offset:<n>", its position in the list) that
// `after` and `before` take back. These lists are reports, computed from the broadcast's
// emails and their events, so there is no row id to key them on.
import { ApiError } from '../api/errors.js';
import type { RouteDoc } from '../api/route.js';
import { envelope, listOf, pageQuery, parsePage, type ListEnvelope } from '../api/pagination.js';
import { type JsonSchema, object, string } from '../api/schema.js';

interface OffsetPage {
  limit: number;
  /** SQL OFFSET: position of the first row wanted. */
  offset: number;
  /** SQL LIMIT: forwards one more than wanted (to tell whether there are more). */
  take: number;
  backwards: boolean;
}

/** The doc of a list paged by parseOffsetPage: its items carry their cursor as `id`. */
export function offsetListDoc(summary: string, item: JsonSchema, query: Record<string, JsonSchema> = {}): RouteDoc {
  const cursor = (description: string) => string({ description: `${description}: the \`id\` of an item of this list.` });
  return {
    summary,
    query: { ...query, limit: pageQuery().limit!, after: cursor('The page starts after it'), before: cursor('The page ends before it') },
    response: { status: 200, schema: listOf(object({ id: string({ description: 'A cursor.' }), ...item.properties }, ['id', ...(item.required ?? [])])) },
  };
}

export function parseOffsetPage(query: Record<string, string | undefined>): OffsetPage {
  const { limit, after, before } = parsePage(query);
  if (before !== undefined) {
    const end = position(before, 'before');
    const offset = Math.max(0, end - limit);
    return { limit, offset, take: end - offset, backwards: true };
  }
  const offset = after === undefined ? 0 : position(after, 'after') + 1;
  return { limit, offset, take: limit + 1, backwards: false };
}

function position(cursor: string, name: string): number {
  const match = /^offset:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || Buffer.from(match[0]).toString('base64url') !== cursor) {
    throw new ApiError('invalid_parameter', `The \`${name}\` parameter must be a cursor from this list.`);
  }
  return Number(match[1]);
}

const cursorAt = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');

/** The page from rows fetched with LIMIT page.take OFFSET page.offset, each given its cursor as `id`. */
export function offsetEnvelope<T extends object>(rows: T[], page: OffsetPage): ListEnvelope<{ id: string } & T> {
  const hasMore = page.backwards ? page.offset > 0 : rows.length > page.limit;
  const data = rows.slice(0, page.limit).map((row, i) => ({ id: cursorAt(page.offset + i), ...row }));
  return envelope(data, hasMore);
}
