// Reading addresses and ids from /suppressions requests. An address is a bare address
// (no display name); it is stored and matched lower-cased.
import { ApiError, missingField, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { array, type JsonSchema, string } from '../api/schema.js';
import type { Body } from '../api/validate.js';
import { parseMailbox } from '../addresses/mailbox.js';

const MAX_BATCH = 100;

/** What parseAddress takes, for the routes' docs. */
export const ADDRESS_SCHEMA = string({ format: 'email', description: 'A bare address, without a display name.' });
/** What batchList takes. */
export const batchSchema = (item: JsonSchema) => array(item, { minItems: 1, maxItems: MAX_BATCH });
/** The path's `:suppression`, as keyCondition reads it. */
export const KEY_SCHEMA = string({ description: 'The suppression id, or the address.' });

export function parseAddress(value: unknown, field: string): string {
  if (typeof value !== 'string') throw validation(`The \`${field}\` field must be a string.`);
  const mailbox = parseMailbox(value, field);
  if (mailbox.name || value.includes('<')) throw validation(`The \`${field}\` field must be a bare email address, such as \`email@example.com\`.`);
  return mailbox.address.toLowerCase();
}

/** A non-empty array of at most MAX_BATCH items of `body[field]`. */
export function batchList(body: Body, field: string): unknown[] {
  const value = body[field];
  if (value === undefined || value === null) throw missingField(field);
  if (!Array.isArray(value)) throw validation(`The \`${field}\` field must be an array.`);
  if (value.length === 0) throw validation(`The \`${field}\` field must have at least 1 item.`);
  if (value.length > MAX_BATCH) throw validation(`The \`${field}\` field must have at most ${MAX_BATCH} items.`);
  return value;
}

export function parseId(value: unknown, field: string): string {
  if (!isUuid(value)) throw new ApiError('invalid_parameter', `The \`${field}\` field must be a valid UUID.`);
  return value.toLowerCase();
}

/** The path's `:suppression`: an id, or an address (the SDK url-encodes it; the router decodes). */
export function keyCondition(key: string): { column: 'id' | 'email'; value: string } | undefined {
  if (isUuid(key as unknown)) return { column: 'id', value: key.toLowerCase() };
  const address = key.trim().toLowerCase();
  return address.includes('@') && !/[\s<>]/.test(address) ? { column: 'email', value: address } : undefined;
}
