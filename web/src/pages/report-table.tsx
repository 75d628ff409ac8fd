// Shared by a domain's report sections (domain-dmarc.tsx, domain-tls-reports.tsx): shares as a
// person reads them, and a table that becomes one card per row at phone width, each value under
// its column's name, so that a report's many columns need no sideways scrolling.
import type { Key } from 'react';
import type { Column } from '../list-table';

/** "94 %", "99.6 %"; never "100 %" when not all, nor "0 %" when some. */
export function percent(part: number, whole: number): string {
  if (whole <= 0) return '—';
  let value = Math.round((part / whole) * 1000) / 10;
  if (value === 100 && part < whole) value = 99.9;
  if (value === 0 && part > 0) value = 0.1;
  return `${value.toLocaleString(undefined, { maximumFractionDigits: 1 })} %`;
}

interface CardTableProps<T> {
  rows: readonly T[];
  columns: readonly Column<T>[];
  /** Names the table for screen readers (the heading above says it to the eye). */
  caption: string;
  className: string;
  rowKey: (row: T, index: number) => Key;
}

/** A table whose first column names its row; at phone width a card per row (styles.css, `table.cards`). */
export function CardTable<T>({ rows, columns, caption, className, rowKey }: CardTableProps<T>) {
  return (
    <div className="table-wrap">
      <table className={`cards ${className}`}>
        <caption className="visually-hidden">{caption}</caption>
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
                n === 0 ? (
                  <th key={c.header} scope="row" className={c.className} data-label={c.header}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={c.header} className={c.className} data-label={c.hideHeader ? undefined : c.header}>
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
