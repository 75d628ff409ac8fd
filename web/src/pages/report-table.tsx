// Shared by a domain's report sections (domain-dmarc.tsx, domain-tls-reports.tsx): shares as a
// person reads them. Their tables are ListTable's `cards`, so a report's many columns need no
// sideways scrolling at phone width.

/** "94 %", "99.6 %"; never "100 %" when not all, nor "0 %" when some. */
export function percent(part: number, whole: number): string {
  if (whole <= 0) return '—';
  let value = Math.round((part / whole) * 1000) / 10;
  if (value === 100 && part < whole) value = 99.9;
  if (value === 0 && part > 0) value = 0.1;
  return `${value.toLocaleString(undefined, { maximumFractionDigits: 1 })} %`;
}
