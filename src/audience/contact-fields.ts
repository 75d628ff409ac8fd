// How contacts are read from requests and rows. A contact's address is a bare address
// (no display name), stored and matched lower-cased; it is found by its id or its address.
import { validation } from '../api/errors.js';
import { isUuid, isoTimestamp, restTimestamp } from '../api/format.js';
import { boolean, constant, type JsonSchema, nullable, number, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { Body } from '../api/validate.js';
import type { ContactEventData } from '../events/payloads.js';
import { parseMailbox } from '../addresses/mailbox.js';
import type { Contact, PropertyValue } from './contact-store.js';

export const CONTACT_COLUMNS = 'id, account_id, email, first_name, last_name, unsubscribed, properties, created_at, updated_at';
/** A contact as CONTACT_COLUMNS reads it. */
export interface ContactRow {
  id: string;
  account_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
  properties: Record<string, PropertyValue>;
  created_at: Date;
  updated_at: Date;
}

/** Longest first_name / last_name kept. */
const MAX_NAME = 256;

/**
 * What parseContactEmail, parseName and parsePropertiesShape take: the routes' docs, and the
 * check of /contacts bodies (request-schema.ts).
 */
export const CONTACT_EMAIL_SCHEMA = string({ format: 'email', description: 'A bare address, without a display name.' });
/** null clears the name. The line-break rule sits in a subschema of its own so that its message speaks for it alone, not for a wrong type or length. */
export const NAME_SCHEMA = nullable(string({ maxLength: MAX_NAME, anyOf: [{ pattern: '^[^\\r\\n\\u0000]*$', 'x-message': 'not contain line breaks' }] }));
export const PROPERTIES_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Values of the contact properties defined for the account (/contact-properties); null clears one.',
  additionalProperties: { type: ['string', 'number', 'null'], 'x-message': 'be a string, a number or null' },
};

/** contactSummary's shape. */
export const CONTACT_SUMMARY_SCHEMA = object({
  id: uuid(),
  email: string(),
  first_name: nullable(string()),
  last_name: nullable(string()),
  created_at: restTime(),
  unsubscribed: boolean(),
});
/** contactDetail's shape. */
export const CONTACT_SCHEMA = object({
  object: constant('contact'),
  ...CONTACT_SUMMARY_SCHEMA.properties,
  properties: { type: 'object', additionalProperties: object({ type: oneOfValues(['string', 'number']), value: nullable({ oneOf: [string(), number()] }) }) },
});

export function parseContactEmail(value: unknown, field = 'email'): string {
  if (typeof value !== 'string') throw validation(`The \`${field}\` field must be a string.`);
  const mailbox = parseMailbox(value, field);
  if (mailbox.name || value.includes('<')) {
    throw validation(`The \`${field}\` field must be a bare email address, such as \`email@example.com\`.`);
  }
  return mailbox.address.toLowerCase();
}

/** A first or last name: a string of at most MAX_NAME characters, or null (absent stays undefined). */
export function parseName(value: unknown, field: string): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (typeof value !== 'string') throw validation(`The \`${field}\` field must be a string.`);
  // Characters as a person counts them (code points), as the request schemas count them.
  if ([...value].length > MAX_NAME) throw validation(`The \`${field}\` field must be at most ${MAX_NAME} characters.`);
  if (/[\r\n\0]/.test(value)) throw validation(`The \`${field}\` field must not contain line breaks.`);
  return value;
}

export function parseUnsubscribed(value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw validation('The `unsubscribed` field must be a boolean.');
  return value;
}

/** `properties` as sent: an object of string | number | null values (checked against definitions later). */
export function parsePropertiesShape(value: unknown): Record<string, PropertyValue> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw validation('The `properties` field must be an object.');
  for (const [key, v] of Object.entries(value as Body)) {
    if (v !== null && typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v))) {
      throw validation(`The \`properties.${key}\` field must be a string, a number or null.`);
    }
  }
  return value as Record<string, PropertyValue>;
}

/** A path's `:contact`: an id, or an address (the SDK sends it unencoded: `a+b@x.com`). */
export function contactKey(key: string): { column: 'id' | 'email'; value: string } | undefined {
  if (isUuid(key as unknown)) return { column: 'id', value: key.toLowerCase() };
  const address = key.trim().toLowerCase();
  return address.includes('@') && !/[\s<>]/.test(address) ? { column: 'email', value: address } : undefined;
}

export function toContact(row: ContactRow): Contact {
  return {
    id: row.id,
    accountId: row.account_id,
    email: row.email,
    firstName: row.first_name ?? null,
    lastName: row.last_name ?? null,
    unsubscribed: row.unsubscribed,
    properties: row.properties ?? {},
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** GET /contacts list item (resend-compat-notes §2.6). */
export function contactSummary(contact: Contact) {
  return {
    id: contact.id,
    email: contact.email,
    first_name: contact.firstName,
    last_name: contact.lastName,
    created_at: restTimestamp(contact.createdAt)!,
    unsubscribed: contact.unsubscribed,
  };
}

/**
 * GET /contacts/:contact. `properties` as SDK 6.38 types them (GetContactResponseSuccess):
 * each key → {type, value}, the type being the property definition's.
 */
export function contactDetail(contact: Contact, types: Map<string, string>) {
  const properties: Record<string, { type: string; value: PropertyValue }> = {};
  for (const [key, value] of Object.entries(contact.properties)) {
    properties[key] = { type: types.get(key) ?? (typeof value === 'number' ? 'number' : 'string'), value };
  }
  return { object: 'contact' as const, ...contactSummary(contact), properties };
}

/** Webhook `data` of contact.* events (openapi ContactEventData; ISO timestamps as all webhook payloads). */
export function contactEventData(contact: Contact, segmentIds: string[]): ContactEventData {
  return {
    id: contact.id,
    // Segments replaced audiences; the SDK's payload type still has audience_id, a string it
    // always declares: the first segment, or the empty string while the contact is in none.
    audience_id: segmentIds[0] ?? '',
    segment_ids: segmentIds,
    created_at: isoTimestamp(contact.createdAt),
    updated_at: isoTimestamp(contact.updatedAt),
    email: contact.email,
    first_name: contact.firstName,
    last_name: contact.lastName,
    unsubscribed: contact.unsubscribed,
  };
}
