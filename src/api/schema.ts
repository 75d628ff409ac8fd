// JSON Schema (draft 2020-12, the dialect OpenAPI 3.1 embeds) for describing routes
// (`RouteDoc` in route.ts), and small builders so a route's description reads close to the
// checks its handler makes. Every route's JSON body, query and path parameters are checked
// against their schemas before its handler runs (request-schema.ts).
import type { ErrorName } from './errors.js';

type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'null';
type JsonValue = string | number | boolean | null;

export interface JsonSchema {
  type?: JsonType | JsonType[];
  description?: string;
  enum?: readonly JsonValue[];
  const?: JsonValue;
  default?: unknown;
  examples?: readonly unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  minProperties?: number;
  maxProperties?: number;
  dependentRequired?: Record<string, readonly string[]>;
  oneOf?: readonly JsonSchema[];
  anyOf?: readonly JsonSchema[];
  allOf?: readonly JsonSchema[];
  not?: JsonSchema;
  contentMediaType?: string;
  contentEncoding?: string;
  $ref?: string;
  /** What a refused value should have been, as `The \`field\` field must …` ends (request-schema.ts). */
  'x-message'?: string;
  /** A required property's own missing-field message, where Resend words it otherwise (request-schema.ts). */
  'x-missing'?: string;
  /** The whole error for a refused value, where Resend words it otherwise (pagination's limit, a cursor). */
  'x-error'?: { name: ErrorName; message: string };
}

type Options = Omit<JsonSchema, 'type'>;

export const string = (options: Options = {}): JsonSchema => ({ type: 'string', ...options });
export const integer = (options: Options = {}): JsonSchema => ({ type: 'integer', ...options });
export const number = (options: Options = {}): JsonSchema => ({ type: 'number', ...options });
export const boolean = (options: Options = {}): JsonSchema => ({ type: 'boolean', ...options });
export const array = (items: JsonSchema, options: Options = {}): JsonSchema => ({ type: 'array', items, ...options });
export const oneOfValues = (values: readonly string[], options: Options = {}): JsonSchema => ({ type: 'string', enum: values, ...options });
export const constant = (value: JsonValue, options: Options = {}): JsonSchema => ({ const: value, ...options });

/** The value, or null. */
export function nullable(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (Array.isArray(schema.type)) return { ...schema, type: [...schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** An object as the API answers it: these properties (more may be added later). */
export function object(properties: Record<string, JsonSchema>, required: readonly string[] = Object.keys(properties), options: Options = {}): JsonSchema {
  return { type: 'object', properties, ...(required.length ? { required } : {}), ...options };
}

/**
 * An object as a request sends it: only these fields (the request's check refuses any other,
 * request-schema.ts), and the `required` ones must be present.
 */
export function input(properties: Record<string, JsonSchema>, required: readonly string[] = [], options: Options = {}): JsonSchema {
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false, ...options };
}

/** Text that becomes a header line: one line, not blank. */
// A lookahead for the non-space, then one pass over the line: linear on any input (the form
// `[^…]*\S[^…]*` backtracks quadratically on a long value that ends in a line break).
export const SINGLE_LINE_TEXT = '^(?=[^\\r\\n\\u0000]*\\S)[^\\r\\n\\u0000]*$';

export const uuid = (description?: string): JsonSchema => string({ format: 'uuid', ...(description ? { description } : {}) });

/** REST resources' timestamps, in PostgreSQL's text form (api/format.ts restTimestamp). */
export const restTime = (): JsonSchema => string({ examples: ['2025-11-30 20:39:59.540+00'] });
/** ISO 8601 timestamps (api/format.ts isoTimestamp). */
export const isoTime = (): JsonSchema => string({ format: 'date-time' });

/** `{object, id}`: what most updates and actions answer. */
export const objectId = (kind: string): JsonSchema => object({ object: constant(kind), id: uuid() });
/** `{object, id, deleted: true}`: what deletes answer. */
export const deletedObject = (kind: string): JsonSchema => object({ object: constant(kind), id: uuid(), deleted: constant(true) });
