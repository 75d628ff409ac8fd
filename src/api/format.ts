// Wire formats Resend uses: REST timestamps in PostgreSQL's text form, webhooks in ISO 8601.

/** "2025-11-30 20:39:59.540+00", as Resend's REST resources send created_at. */
export function restTimestamp(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(value);
  return date.toISOString().replace('T', ' ').replace('Z', '+00');
}

/** "2025-11-30T20:39:59.540Z", as webhook payloads and signed-URL expiries use. */
export function isoTimestamp(value: Date | string): string;
export function isoTimestamp(value: Date | string | null | undefined): string | null;
export function isoTimestamp(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID.test(value);
