// A list page's scaffolding, written once: the table (a page states only its columns), a list
// read page by page over the API's `after` cursor with its states (an error, what an empty list
// says, the rows, the pager), and a list read on with "Show more" (an email's timeline).
import { type QueryClient, type QueryKey, useInfiniteQuery, useQuery } from '@tanstack/react-query';
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

/**
 * Cursor paging over an `after` id, as the API pages: the cursors of the pages already seen,
 * so "Previous" goes back without the API needing `before`.
 */
function useCursor() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    after: cursors.at(-1),
    page: cursors.length + 1,
    next: (lastId: string) => setCursors((c) => [...c, lastId]),
    previous: () => setCursors((c) => c.slice(0, -1)),
  };
}

type RefetchInterval<T> = number | false | ((query: { state: { data?: List<T> } }) => number | false | undefined);

/**
 * One page of a list, read from `path(after)`, keyed by `queryKey` and the cursor (so a change
 * invalidating `queryKey` refreshes every page). A list whose filters change is remounted by its
 * page (`key`), so it starts again at the first page.
 */
export function usePagedList<T extends { id: string }>(queryKey: QueryKey, path: (after: string | undefined) => string, refetchInterval?: RefetchInterval<T>) {
  const cursor = useCursor();
  const list = useQuery({ queryKey: [...queryKey, cursor.after], queryFn: () => api<List<T>>('GET', path(cursor.after)), refetchInterval });
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
      <Pager cursor={cursor} hasMore={list.data?.has_more ?? false} lastId={rows.at(-1)?.id} />
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

function Pager({ cursor, hasMore, lastId }: { cursor: ReturnType<typeof useCursor>; hasMore: boolean; lastId: string | undefined }) {
  if (cursor.page === 1 && !hasMore) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="secondary small" disabled={cursor.page === 1} onClick={cursor.previous}>
        Previous page
      </button>
      <span>Page {cursor.page}</span>
      <button type="button" className="secondary small" disabled={!hasMore || !lastId} onClick={() => lastId && cursor.next(lastId)}>
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
