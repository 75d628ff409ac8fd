// Human-readable durations as delay and wait_for_event steps take them ("30 minutes", "1 hour",
// "3 days", "1 week", "2 seconds"; also "1h 30m" or "1 hour and 30 minutes"), at most 30 days
// (Resend's limit on both).
export const MAX_DURATION_MS = 30 * 86_400_000;

const UNITS: [RegExp, number][] = [
  [/^(ms|milliseconds?)$/, 1],
  [/^(s|secs?|seconds?)$/, 1_000],
  [/^(m|mins?|minutes?)$/, 60_000],
  [/^(h|hrs?|hours?)$/, 3_600_000],
  [/^(d|days?)$/, 86_400_000],
  [/^(w|wks?|weeks?)$/, 7 * 86_400_000],
];
const PART = /(\d+(?:\.\d+)?)\s*([a-z]+)/g;

/** Milliseconds, or undefined when `text` is not a duration this understands. */
export function parseHumanDuration(text: string): number | undefined {
  const source = text.trim().toLowerCase();
  if (source === '') return undefined;
  let total = 0;
  let rest = source;
  for (const [whole, amount, unitName] of source.matchAll(PART)) {
    const unit = UNITS.find(([pattern]) => pattern.test(unitName!));
    if (!unit) return undefined;
    total += Number(amount) * unit[1];
    rest = rest.replace(whole, ' ');
  }
  // Only separators may remain between the parts.
  if (!/^[\s,]*(?:(?:and|,)[\s,]*)*$/.test(rest.replace(/\band\b/g, ','))) return undefined;
  const ms = Math.round(total);
  return ms > 0 ? ms : undefined;
}
