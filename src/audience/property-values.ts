// A contact's `properties` are typed by the account's /contact-properties definitions: every
// key must be defined and every value of the defined type (null clears the value, so the
// property's fallback_value applies again).
import { validation } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import type { PropertyValue } from './contact-store.js';

export type PropertyType = 'string' | 'number';

export interface PropertyDefinition {
  key: string;
  type: PropertyType;
  fallbackValue: string | number | null;
}

interface PropertyDefinitionRow {
  key: string;
  type: PropertyType;
  fallback_value: string | number | null;
}

/**
 * The account's definitions (of `keys` only, when given). Asked for `keys`, the rows are
 * share-locked: a property deleted meanwhile waits for the write that uses it, whose values
 * the delete then removes, so no contact keeps a value of a property that no longer exists.
 */
export async function propertyDefinitions(q: Queryable, accountId: string, keys?: string[]): Promise<Map<string, PropertyDefinition>> {
  const rows = keys
    ? await q.query<PropertyDefinitionRow>(
        'SELECT key, type, fallback_value FROM contact_properties WHERE account_id = $1 AND key = ANY($2::text[]) FOR SHARE',
        [accountId, keys],
      )
    : await q.query<PropertyDefinitionRow>('SELECT key, type, fallback_value FROM contact_properties WHERE account_id = $1', [accountId]);
  return new Map(rows.map((r) => [r.key, { key: r.key, type: r.type, fallbackValue: r.fallback_value ?? null }]));
}

/** Whether `value` (not null) is a value of `type`. */
export function ofType(value: unknown, type: PropertyType): boolean {
  return type === 'string' ? typeof value === 'string' : typeof value === 'number' && Number.isFinite(value);
}

/** Checks `properties` against the definitions; ApiError 422 naming the first offending key. */
export async function checkPropertyValues(q: Queryable, accountId: string, properties: Record<string, PropertyValue>): Promise<void> {
  const keys = Object.keys(properties);
  if (keys.length === 0) return;
  const defined = await propertyDefinitions(q, accountId, keys);
  for (const key of keys) {
    const definition = defined.get(key);
    if (!definition) {
      throw validation(`The property \`${key}\` does not exist. Create it with POST /contact-properties first.`);
    }
    const value = properties[key];
    if (value !== null && !ofType(value, definition.type)) {
      throw validation(`The property \`${key}\` must be a ${definition.type}.`);
    }
  }
}

/** Stored properties after applying `changes`: null removes a key. */
export function mergeProperties(current: Record<string, PropertyValue>, changes: Record<string, PropertyValue>): Record<string, PropertyValue> {
  const merged: Record<string, PropertyValue> = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}
