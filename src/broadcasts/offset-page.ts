// Pagination of a broadcast's recipients and clicked links, as Resend pages them: each row's
// `id` is an opaque cursor (base64url of "offset:<n>", its position in the list) that
// `after` and `before` take back. These lists are reports, computed from the broadcast's
// emails and their events, so there is no row id to key them on.
import { ApiError, validation } from '../api/errors.js';
import { envelope, parsePage, type ListEnvelope } from '../api/pagination.js';

interface OffsetPage {
  limit: number;
  /** SQL OFFSET: position of the first row wanted. */
  offset: number;
  /** SQL LIMIT: forwards one more than wanted (to tell whether there are more). */
  take: number;
  backwards: boolean;
}

export function parseOffsetPage(query: Record<string, string | undefined>): OffsetPage {
  const { limit } = parsePage({ limit: query.limit });
  const { after, before } = query;
  if (after !== undefined && before !== undefined) throw validation('You can only use either `after` or `before`, not both.');
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
