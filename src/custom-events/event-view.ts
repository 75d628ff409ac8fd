// How a custom event definition reads over the API (resend-compat-notes §2.11): list items
// without `object`, a single one with it.
import { restTimestamp } from '../api/format.js';
import { constant, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { EventSchema } from './event-fields.js';

export const EVENT_COLUMNS = 'id, name, schema, created_at, updated_at';
/** An event definition as EVENT_COLUMNS reads it. */
export interface EventRow {
  id: string;
  name: string;
  schema: EventSchema | null;
  created_at: Date;
  updated_at: Date | null;
}

/** eventSummary's shape, for the routes' docs. */
export const EVENT_SUMMARY_SCHEMA = object({
  id: uuid(),
  name: string(),
  schema: nullable({ type: 'object', additionalProperties: oneOfValues(['string', 'number', 'boolean', 'date']) }),
  created_at: restTime(),
  updated_at: nullable(restTime()),
});
export const EVENT_SCHEMA = object({ object: constant('event'), ...EVENT_SUMMARY_SCHEMA.properties });

export function eventSummary(row: EventRow) {
  return {
    id: row.id,
    name: row.name,
    schema: row.schema ?? null,
    created_at: restTimestamp(row.created_at)!,
    updated_at: restTimestamp(row.updated_at),
  };
}

export function eventDetail(row: EventRow) {
  return { object: 'event' as const, ...eventSummary(row) };
}
