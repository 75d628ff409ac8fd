// A list page's scaffolding, written once: the table (a page states only its columns), a list
// read page by page over the API's `after` cursor with its states (an error, what an empty list
// says, the rows, the pager), its place kept in the component or in the page's URL, and a list
// read on with "Show more" (an email's timeline).
import { keepPreviousData, type QueryClient, type QueryKey, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { type Key, type ReactNode, useState } from 'react';
import { api, type List } from './api';
import { ErrorMessage } from './components';

/** One column: its heading and what each row shows in it. */
export interface Column<T> {
  /** Said by screen readers only when `hideHeader` (a column of buttons needs no visible title). */
  header: string;
  hideHeader?: boolean;
  cell: (row: T) => ReactNode;
  /** The cells' class: `number` aligns figures, `hint` greys, `link-cell` wraps long URLs. */
  className?: string;
}

interface TableProps<T> {
  rows: readonly T[];
  columns: readonly Column<T>[];
  /** Names the table for screen readers (the heading above says it to the eye). */
  caption?: string;
  className?: string;
  /** The first column names its row (a `th`), unless the rows have no name of their own. */
  rowHeaders?: boolean;
  /** Default: the row's `id`. */
  rowKey?: (row: T, index: number) => Key;
  /** At phone width a card per row, each value under its column's name (styles.css, `table.cards`): for tables of many columns. */
  cards?: boolean;
}

const idOf = (row: unknown, index: number): Key => (row as { id?: Key }).id ?? index;

export function ListTable<T>({ rows, columns, caption, className, rowHeaders = true, rowKey = idOf, cards = false }: TableProps<T>) {
  const label = (c: Column<T>) => (cards && !c.hideHeader ? c.header : undefined);
  return (
    <div className="table-wrap">
      <table className={cards ? `cards ${className ?? ''}`.trim() : className}>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col">
                {c.hideHeader ? <span className="visually-hidden">{c.header}</span> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={rowKey(row, i)}>
              {columns.map((c, n) =>
                n === 0 && rowHeaders ? (
                  <th key={c.header} scope="row" className={c.className} data-label={cards ? c.header : undefined}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={c.header} className={c.className} data-label={label(c)}>
                    {c.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Where a list's paging stands (page 1 has no cursor), and how it moves from the page shown ('' when it has no rows). */
interface Cursor {
  page: number;
  after?: string;
  before?: string;
  next: (lastId: string) => void;
  previous: (firstId: string) => void;
}

/**
 * Cursor paging over an `after` id, as the API pages: the cursors of the pages already seen,
 * so "Previous" goes back without the API needing `before`.
 */
function useCursor(): Cursor {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    after: cursors.at(-1),
    page: cursors.length + 1,
    next: (lastId: string) => setCursors((c) => [...c, lastId]),
    previous: () => setCursors((c) => c.slice(0, -1)),
  };
}

/**
 * Paging kept in the page's URL (`search`, its query string): `page`, and `after` the last
 * row of the page before it or `before` the first row of the one after it, so Back (or a reload)
 * returns to the same page. `go` moves to the query string given, which keeps the rest of `search`.
 */
export function urlCursor(search: string, go: (query: URLSearchParams) => void): Cursor {
  const params = new URLSearchParams(search);
  const after = params.get('after') ?? undefined;
  const before = after ? undefined : (params.get('before') ?? undefined);
  const page = after || before ? Math.max(2, Number.parseInt(params.get('page') ?? '', 10) || 2) : 1;
  const move = (to: number, key: 'after' | 'before', id: string) => {
    const query = new URLSearchParams(search);
    for (const name of ['page', 'after', 'before']) query.delete(name);
    if (to > 1) {
      query.set('page', String(to));
      query.set(key, id);
    }
    go(query);
  };
  return {
    page,
    after,
    before,
    next: (lastId) => move(page + 1, 'after', lastId),
    // From a page without rows (they went), back to the first.
    previous: (firstId) => move(firstId ? page - 1 : 1, 'before', firstId),
  };
}

type RefetchInterval<T> = number | false | ((query: { state: { data?: List<T> } }) => number | false | undefined);

/**
 * One page of a list, read from `path(after, before)`, keyed by `queryKey` and the cursor (so a
 * change invalidating `queryKey` refreshes every page). A list whose filters change is remounted
 * by its page (`key`), so it starts again at the first page; or its place is `options.cursor`
 * (urlCursor), which its page moves. `keepPrevious`: the rows shown stay until the next ones
 * arrive (a list filtered as one types).
 */
export function usePagedList<T extends { id: string }>(
  queryKey: QueryKey,
  path: (after: string | undefined, before?: string) => string,
  refetchInterval?: RefetchInterval<T>,
  options: { cursor?: Cursor; keepPrevious?: boolean } = {},
) {
  const own = useCursor();
  const cursor = options.cursor ?? own;
  const list = useQuery({
    queryKey: [...queryKey, cursor.after, ...(cursor.before ? [cursor.before] : [])],
    queryFn: () => api<List<T>>('GET', path(cursor.after, cursor.before)),
    refetchInterval,
    placeholderData: options.keepPrevious ? keepPreviousData : undefined,
  });
  return { cursor, list, rows: list.data?.data ?? [] };
}

/**
 * After a change made where a list is not on screen (an item's page, a delete): the list is
 * forgotten, not only marked stale. A stale list is shown as it was while it is read again, so
 * going back would show the deleted row, or the old status, until its refetch.
 */
export function forgetList(queryClient: QueryClient, queryKey: QueryKey): void {
  queryClient.removeQueries({ queryKey });
}

type PagedList<T extends { id: string }> = ReturnType<typeof usePagedList<T>>;

/** A page of a list in any shape (`children` draws the rows), with its error, empty notice and pager. */
export function PagedView<T extends { id: string }>({ paged, empty, children }: { paged: PagedList<T>; empty: ReactNode; children: (rows: T[]) => ReactNode }) {
  const { cursor, list, rows } = paged;
  return (
    <>
      <ErrorMessage error={list.error} />
      {list.data && rows.length === 0 && cursor.page === 1 && <Empty>{empty}</Empty>}
      {rows.length > 0 && children(rows)}
      <Pager cursor={cursor} hasMore={list.data?.has_more ?? false} firstId={rows[0]?.id} lastId={rows.at(-1)?.id} />
    </>
  );
}

/** A page of a list as a table: what the list is empty says `empty`, a notice unless it is an element. */
export function PagedTable<T extends { id: string }>({ paged, empty, ...table }: { paged: PagedList<T>; empty: ReactNode } & Omit<TableProps<T>, 'rows'>) {
  return (
    <PagedView paged={paged} empty={empty}>
      {(rows) => <ListTable rows={rows} {...table} />}
    </PagedView>
  );
}

/** What an empty list says: a sentence is a notice; an element (a quieter hint) stands as it is. */
function Empty({ children }: { children: ReactNode }) {
  return typeof children === 'string' ? <p className="notice">{children}</p> : children;
}

function Pager({ cursor, hasMore, firstId, lastId }: { cursor: Cursor; hasMore: boolean; firstId: string | undefined; lastId: string | undefined }) {
  // A page read `before` a row has that row (and more) after it; `has_more` says what lies before.
  const more = cursor.before !== undefined || hasMore;
  if (cursor.page === 1 && !more) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="secondary small" disabled={cursor.page === 1} onClick={() => cursor.previous(firstId ?? '')}>
        Previous page
      </button>
      <span>Page {cursor.page}</span>
      <button type="button" className="secondary small" disabled={!more || !lastId} onClick={() => lastId && cursor.next(lastId)}>
        Next page
      </button>
    </nav>
  );
}

/**
 * A list read on page after page into one (`after` the last row's id), oldest first, for a
 * timeline that is read from its start: `more` fetches the next page while `hasMore`.
 */
export function useListReadOn<T extends { id: string | number }>(queryKey: QueryKey, path: (after: string | undefined) => string, refetchInterval?: number) {
  const list = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam }) => api<List<T>>('GET', path(pageParam)),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => (last.has_more && last.data.length ? String(last.data.at(-1)!.id) : undefined),
    refetchInterval,
  });
  return { list, rows: list.data?.pages.flatMap((p) => p.data) };
}

/** "Show more" under a list read on, while there is more. */
export function ShowMore({ list, what }: { list: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown }; what: string }) {
  if (!list.hasNextPage) return null;
  return (
    <button type="button" className="secondary small" disabled={list.isFetchingNextPage} onClick={() => list.fetchNextPage()}>
      {list.isFetchingNextPage ? 'Loading…' : `Show more ${what}`}
    </button>
  );
}
