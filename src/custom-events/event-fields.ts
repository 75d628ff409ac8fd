// The fields of the /events routes (resend-compat-notes §2.11): the schemas that check their
// bodies (request-schema.ts) with the event names (automations' step configs use the same
// schema) and the flat payload schema of a defined event, and a payload checked against its
// event's schema.
import { validation } from '../api/errors.js';
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
/** isUuid's shape: a name never looks like an id, so /events/:identifier is never ambiguous. */
const UUID_SHAPE = '[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}';
/** Any character but a control character. */
const NAME_CHAR = '[^\\u0000-\\u001f\\u007f]';
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

/**
 * An event name: the check of the /events bodies and of automations' step configs
 * (request-schema.ts), and their docs. One message for every way a name can be wrong.
 */
export const EVENT_NAME_SCHEMA = string({
  maxLength: MAX_NAME,
  // No control character anywhere, one that is not white space somewhere (`\\S` alone would
  // match a control character).
  pattern: `^(?![Rr][Ee][Ss][Ee][Nn][Dd]:)(?!${UUID_SHAPE}$)${NAME_CHAR}*[^\\s\\u0000-\\u001f\\u007f]${NAME_CHAR}*$`,
  'x-message': `be an event name: at most ${MAX_NAME} characters on one line, not blank, not shaped like an id, and not starting with \`${RESERVED_PREFIX}\` (the prefix of system events)`,
  description: 'Not `resend:…` (system events), and not shaped like an id.',
});
const SCHEMA_TYPE_LIST = SCHEMA_TYPES.map((t) => `"${t}"`).join(' | ');
/** A defined event's payload schema as sent: null (any payload) or a flat map of field name → type. */
export const EVENT_SCHEMA_SCHEMA: JsonSchema = nullable({
  type: 'object',
  description: 'Payload field names and their types; null: any payload.',
  maxProperties: MAX_SCHEMA_KEYS,
  propertyNames: { minLength: 1, maxLength: MAX_KEY, pattern: '\\S', 'x-message': `have field names of 1 to ${MAX_KEY} characters, not blank` },
  additionalProperties: oneOfValues(SCHEMA_TYPES, { 'x-message': `be one of ${SCHEMA_TYPE_LIST}` }),
  'x-message': `be an object of at most ${MAX_SCHEMA_KEYS} field names to ${SCHEMA_TYPE_LIST}, or null`,
});
export const PAYLOAD_SCHEMA: JsonSchema = {
  type: 'object',
  description: `At most ${MAX_PAYLOAD_BYTES / 1024} KB of JSON; a defined event's payload holds only the fields of its schema, of their types.`,
};

/** The `payload` of POST /events/send (an object, checked): at most MAX_PAYLOAD_BYTES as JSON. */
export function checkPayloadSize(payload: Body): void {
  if (Buffer.byteLength(JSON.stringify(payload)) > MAX_PAYLOAD_BYTES) {
    throw validation(`The \`payload\` field must be at most ${MAX_PAYLOAD_BYTES / 1024} KB of JSON.`);
  }
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
