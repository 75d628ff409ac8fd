// How a suppression reads over the API (resend-compat-notes §2.13): list items without
// `object`, a single one with it.
import { restTimestamp } from '../api/format.js';
import { constant, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';

/** Why an address is on the list. */
export type SuppressionOrigin = 'bounce' | 'complaint' | 'manual';
export const ORIGINS: readonly SuppressionOrigin[] = ['bounce', 'complaint', 'manual'];

export const SUPPRESSION_COLUMNS = 'id, email, origin, source_id, created_at';
/** A suppressions row as SUPPRESSION_COLUMNS selects it. */
export interface SuppressionRow {
  id: string;
  email: string;
  origin: SuppressionOrigin;
  source_id: string | null;
  created_at: Date;
}

/** suppressionSummary's shape, for the routes' docs; GET of one adds `object`. */
export const SUPPRESSION_SUMMARY_SCHEMA = object({
  id: uuid(),
  email: string(),
  origin: oneOfValues(ORIGINS),
  source_id: nullable(uuid('The email whose bounce or complaint added it.')),
  created_at: restTime(),
});
export const SUPPRESSION_SCHEMA = object({ object: constant('suppression'), ...SUPPRESSION_SUMMARY_SCHEMA.properties });

export function suppressionSummary(row: SuppressionRow) {
  return {
    id: row.id,
    email: row.email,
    origin: row.origin,
    source_id: row.source_id ?? null,
    created_at: restTimestamp(row.created_at)!,
  };
}

export function suppressionDetail(row: SuppressionRow) {
  return { object: 'suppression' as const, ...suppressionSummary(row) };
}
