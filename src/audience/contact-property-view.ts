// Contact property definitions over the API (resend-compat-notes §2.7): a key of at most 50
// characters [A-Za-z0-9_], a type (string | number) and an optional fallback_value of that
// type, used for {{{KEY}}} when a contact has no value.
import { ApiError, notFound, validation } from '../api/errors.js';
import { restTimestamp } from '../api/format.js';
import { constant, input, type JsonSchema, nullable, number, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import { ofType, type PropertyType } from './property-values.js';

export const PROPERTY_COLUMNS = 'id, key, type, fallback_value, created_at';
/** A definition as PROPERTY_COLUMNS reads it. */
export interface PropertyRow {
  id: string;
  key: string;
  type: PropertyType;
  fallback_value: string | number | null;
  created_at: Date;
}

const PROPERTY_TYPES: readonly PropertyType[] = ['string', 'number'];
const KEY = /^[A-Za-z0-9_]{1,50}$/;
/** Contact fields and the unsubscribe link already fill these template variables. */
const RESERVED = ['FIRST_NAME', 'LAST_NAME', 'EMAIL', 'UNSUBSCRIBE_URL', 'RESEND_UNSUBSCRIBE_URL'];

/** `fallback_value` as sent: of the property's type (checkFallback), or null for none. */
export const FALLBACK_SCHEMA: JsonSchema = { type: ['string', 'number', 'null'], description: "Of the property's type; null: none." };
/** The body of POST /contact-properties: its check (request-schema.ts) and docs. */
export const CREATE_PROPERTY_SCHEMA = input(
  {
    key: string({
      pattern: KEY.source,
      'x-message': 'be 1 to 50 characters long and contain only letters, digits and underscores',
      description: `Letters, digits and underscores; not one of ${RESERVED.join(', ')}.`,
    }),
    type: oneOfValues(PROPERTY_TYPES),
    fallback_value: FALLBACK_SCHEMA,
  },
  ['key', 'type'],
);
/** The body of POST /contact-properties once it passed CREATE_PROPERTY_SCHEMA. */
export interface CreatePropertyBody {
  key: string;
  type: PropertyType;
  fallback_value?: string | number | null;
}

/** propertySummary's shape. */
export const PROPERTY_SUMMARY_SCHEMA = object({
  id: uuid(),
  key: string(),
  type: oneOfValues(PROPERTY_TYPES),
  fallback_value: nullable({ oneOf: [string(), number()] }),
  created_at: restTime(),
});
export const PROPERTY_SCHEMA = object({ object: constant('contact_property'), ...PROPERTY_SUMMARY_SCHEMA.properties });

/** A key the template variables of contact fields do not already use. */
export function checkKeyFree(key: string): void {
  if (RESERVED.includes(key.toUpperCase())) throw validation(`The key \`${key}\` is reserved.`);
}

/** A fallback of the property's type (null: none). */
export function checkFallback(value: string | number | null, type: PropertyType): void {
  if (value !== null && !ofType(value, type)) throw validation(`The \`fallback_value\` field must be a ${type}, like the property.`);
}

/** The account's property `id` (a route's `:id`, a UUID its schema checked), or 404. */
export async function findProperty(q: Queryable, accountId: string, id: string | undefined, options: { lock?: boolean } = {}): Promise<PropertyRow> {
  const row = await q.one<PropertyRow>(
    `SELECT ${PROPERTY_COLUMNS} FROM contact_properties WHERE id = $1 AND account_id = $2${options.lock ? ' FOR UPDATE' : ''}`,
    [id, accountId],
  );
  if (!row) throw notFound('Contact property');
  return row;
}

export function propertySummary(row: PropertyRow) {
  return {
    id: row.id,
    key: row.key,
    type: row.type,
    fallback_value: row.fallback_value ?? null,
    created_at: restTimestamp(row.created_at)!,
  };
}

export function propertyDetail(row: PropertyRow) {
  return { object: 'contact_property' as const, ...propertySummary(row) };
}

export const keyTaken = (key: string) => new ApiError('validation_error', `A contact property with the key \`${key}\` already exists.`);
