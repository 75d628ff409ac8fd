// The fields of the /events routes (resend-compat-notes §2.11), checked once here: event
// names, the flat payload schema of a defined event, and a payload checked against it.
import { missingField, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { type JsonSchema, nullable, oneOfValues, string } from '../api/schema.js';
import type { Body } from '../api/validate.js';

export type SchemaType = 'string' | 'number' | 'boolean' | 'date';
export type EventSchema = Record<string, SchemaType>;

const SCHEMA_TYPES: readonly SchemaType[] = ['string', 'number', 'boolean', 'date'];
/** Names with this prefix are Resend's system events; callers may neither define nor send them. */
const RESERVED_PREFIX = 'resend:';
const MAX_NAME = 255;
const MAX_SCHEMA_KEYS = 50;
const MAX_KEY = 100;
/** A payload is copied into every run it starts; keep runs small. */
const MAX_PAYLOAD_BYTES = 64 * 1024;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

/** What parseEventName, parseSchema and parsePayload take, for the routes' docs. */
export const EVENT_NAME_SCHEMA = string({
  maxLength: MAX_NAME,
  pattern: '^(?![Rr][Ee][Ss][Ee][Nn][Dd]:)[^\\u0000-\\u001f\\u007f]*\\S[^\\u0000-\\u001f\\u007f]*$',
  description: 'Not `resend:…` (system events), and not shaped like an id.',
});
export const EVENT_SCHEMA_SCHEMA: JsonSchema = nullable({
  type: 'object',
  description: 'Payload field names and their types; null: any payload.',
  maxProperties: MAX_SCHEMA_KEYS,
  propertyNames: { minLength: 1, maxLength: MAX_KEY, pattern: '\\S' },
  additionalProperties: oneOfValues(SCHEMA_TYPES),
});
export const PAYLOAD_SCHEMA: JsonSchema = {
  type: 'object',
  description: `At most ${MAX_PAYLOAD_BYTES / 1024} KB of JSON; a defined event's payload holds only the fields of its schema, of their types.`,
};

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * An event name as given in `field`: 1–255 characters on one line, not `resend:…`, and never
 * shaped like an id, so that /events/:identifier (an id or a name) is never ambiguous.
 */
export function parseEventName(value: unknown, field: string): string {
  if (value === undefined || value === null) throw missingField(field);
  if (typeof value !== 'string') throw validation(`The \`${field}\` field must be a string.`);
  if (value.trim() === '') throw validation(`The \`${field}\` field must not be empty.`);
  if (value.length > MAX_NAME) throw validation(`The \`${field}\` field must be at most ${MAX_NAME} characters.`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u001f\u007f]/.test(value)) throw validation(`The \`${field}\` field must not contain control characters.`);
  if (value.toLowerCase().startsWith(RESERVED_PREFIX)) {
    throw validation(`The \`${field}\` field cannot start with \`${RESERVED_PREFIX}\`: the prefix is reserved for system events.`);
  }
  if (isUuid(value)) throw validation(`The \`${field}\` field must not look like an id.`);
  return value;
}

/** `schema`: null (any payload) or a flat map of field name → one of SCHEMA_TYPES. */
export function parseSchema(value: unknown): EventSchema | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) throw validation('The `schema` field must be an object of field names to "string" | "number" | "boolean" | "date", or null.');
  const keys = Object.keys(value);
  if (keys.length > MAX_SCHEMA_KEYS) throw validation(`The \`schema\` field must have at most ${MAX_SCHEMA_KEYS} fields.`);
  const schema: EventSchema = {};
  for (const key of keys) {
    if (key.trim() === '' || key.length > MAX_KEY) throw validation(`The \`schema\` field names must be 1 to ${MAX_KEY} characters.`);
    const type = value[key];
    if (typeof type !== 'string' || !SCHEMA_TYPES.includes(type as SchemaType)) {
      throw validation(`The \`schema.${key}\` field must be one of ${SCHEMA_TYPES.map((t) => `"${t}"`).join(' | ')}.`);
    }
    schema[key] = type as SchemaType;
  }
  return schema;
}

/** The `payload` of POST /events/send: an object, of at most MAX_PAYLOAD_BYTES as JSON. */
export function parsePayload(value: unknown): Body {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw validation('The `payload` field must be an object.');
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_PAYLOAD_BYTES) {
    throw validation(`The \`payload\` field must be at most ${MAX_PAYLOAD_BYTES / 1024} KB of JSON.`);
  }
  return value;
}

/**
 * Checks a payload against the schema of its defined event: every field must be in the
 * schema and of its type (null stands for absent). Fields of the schema may be left out.
 */
export function checkPayload(name: string, schema: EventSchema, payload: Body): void {
  for (const [key, value] of Object.entries(payload)) {
    const type = schema[key];
    if (type === undefined) throw validation(`The \`payload.${key}\` field is not in the schema of the event \`${name}\`.`);
    if (value === null || matches(type, value)) continue;
    throw validation(
      `The \`payload.${key}\` field must be ${type === 'date' ? 'a date (ISO 8601)' : `a ${type}`}, as the schema of the event \`${name}\` says.`,
    );
  }
}

function matches(type: SchemaType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'date':
      return typeof value === 'string' && ISO_DATE.test(value) && Number.isFinite(Date.parse(value));
  }
}
