// A route's documented request schema (RouteDoc.body and RouteDoc.query, schema.ts) as the check
// of its requests: compiled once with Ajv (JSON Schema 2020-12, the dialect OpenAPI 3.1 embeds)
// at the route's first request, so /openapi.json and the validation cannot disagree. The first
// failure becomes Resend's error body with the messages the API has always given (`Missing \`x\`
// field.`, `Unknown field \`x\`.`, `The \`x\` field must be a string.`…); a schema that wants its
// own words for a value it refuses says them in `x-message`, or its whole error (name and
// message, as Resend words pagination's) in `x-error`.
//
// Query parameters arrive as strings: they are checked as the types their schemas document
// (`limit=abc` is not an integer) on a copy, and the handler reads the strings as before. A bad
// one is `invalid_parameter`, "The \`x\` parameter must …". Parameters no schema names are let
// through, as Resend's API does.
//
// As Resend does, a null optional field is the field left out: nulls the schema does not allow
// are removed before the check (a required one then reads as missing), and the handler gets the
// body without them. No body at all, or a JSON null, is an empty object where the schema wants
// one: its required fields are then named as missing.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { ApiError, missingField, validation } from './errors.js';
import type { JsonSchema } from './schema.js';

// verbose: the refused value comes with the error, so a message can say what was sent.
// Lengths count characters (code points): an emoji is one, as a person counts it.
// Query and path parameters are coerced to their documented types ('array': a single value is a list of one).
const ajv = withPostlineKeywords(new Ajv2020({ allErrors: false, strict: false, validateFormats: true, verbose: true }));
const queryAjv = withPostlineKeywords(new Ajv2020({ allErrors: false, strict: false, validateFormats: true, verbose: true, coerceTypes: 'array' }));

function withPostlineKeywords(instance: Ajv2020): Ajv2020 {
  instance.addKeyword({ keyword: 'x-message', schemaType: 'string' });
  instance.addKeyword({ keyword: 'x-missing', schemaType: 'string' });
  instance.addKeyword({ keyword: 'x-error', schemaType: 'object' });
  instance.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
  instance.addFormat('date-time', (value: string) => !Number.isNaN(Date.parse(value)));
  // What the handlers check of these is more than a pattern can say (a URL's scheme, an address's
  // display name): the schema documents them, the handler judges them.
  for (const format of ['uri', 'email', 'hostname']) instance.addFormat(format, () => true);
  // Formats that only describe content (PEM, prose…): nothing to check.
  for (const format of ['auto-reply', 'der', 'none', 'pem', 'pretty', 'prose']) instance.addFormat(format, () => true);
  return instance;
}

export type RequestCheck = (body: unknown) => unknown;

/** The check of a body against `schema`: returns the body without the nulls it dropped, or throws the first failure. */
export function requestCheck(schema: JsonSchema): RequestCheck {
  const validate = ajv.compile(schema);
  const wantsObject = schema.type === 'object';
  return (body) => {
    const cleaned = withoutNulls((body === undefined || body === null) && wantsObject ? {} : body, schema);
    if (!validate(cleaned)) throw apiErrorOf(validate.errors![0]!, 'field');
    return cleaned;
  };
}

export type QueryCheck = (query: Record<string, string | undefined>) => void;

/**
 * The check of a query string against its parameters' `schemas`: throws the first failure. A
 * list parameter arrives as one string, comma-separated (the SDK joins arrays with commas, and
 * http/routes.ts joins a repeated one): its items are checked one by one.
 */
export function queryCheck(schemas: Record<string, JsonSchema>): QueryCheck {
  const validate = queryAjv.compile({ type: 'object', properties: schemas });
  const lists = Object.keys(schemas).filter((name) => schemas[name]!.type === 'array');
  return (query) => {
    const copy: Record<string, unknown> = { ...query };
    for (const name of lists) {
      const value = query[name];
      if (value !== undefined) copy[name] = value.split(',').flatMap((item) => item.trim() || []);
    }
    if (!validate(copy)) throw apiErrorOf(validate.errors![0]!, 'query');
  };
}

export type ParamsCheck = (params: Record<string, string>) => void;

/** The check of a route's path parameters against their `schemas` (RouteDoc.params): throws the first failure. */
export function paramsCheck(schemas: Record<string, JsonSchema>): ParamsCheck {
  const validate = queryAjv.compile({ type: 'object', properties: schemas });
  return (params) => {
    // On a copy: coercion to a documented type would change the handler's strings.
    if (!validate({ ...params })) throw apiErrorOf(validate.errors![0]!, 'path');
  };
}

/** Drops the object properties whose value is null where the property's schema does not allow null. */
function withoutNulls(value: unknown, schema: JsonSchema | undefined): unknown {
  if (!schema) return value;
  if (Array.isArray(value)) return schema.items ? value.map((item) => withoutNulls(item, schema.items)) : value;
  if (typeof value !== 'object' || value === null || !schema.properties) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = schema.properties[key];
    if (item === null && property && !allowsNull(property)) continue;
    out[key] = withoutNulls(item, property);
  }
  return out;
}

function allowsNull(schema: JsonSchema): boolean {
  if (schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  if (schema.const === null || schema.enum?.includes(null)) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(allowsNull);
}

/** `/tags/0/name` → `tags[0].name`. */
function fieldName(instancePath: string, property?: string): string {
  const parts = [
    ...instancePath
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~')),
    ...(property ? [property] : []),
  ];
  return parts.reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');
}

const ARTICLE: Record<string, string> = {
  string: 'a string',
  boolean: 'a boolean',
  integer: 'an integer',
  number: 'a number',
  array: 'an array',
  object: 'an object',
  null: 'null',
};

/** Failures where saying what was sent helps (a misspelt event type, a wrong constant); and any with its own message. */
const VALUE_SHOWN = new Set(['enum', 'const', 'pattern', 'format']);

/** `, not "email.teleported"`; nothing for a value too long to quote in a message. */
function sent(value: unknown): string {
  const text = JSON.stringify(value);
  return text !== undefined && text.length <= 80 ? `, not ${text}` : '';
}

function apiErrorOf(error: ErrorObject, of: 'field' | 'query' | 'path'): ApiError {
  const params = error.params as Record<string, unknown>;
  const schema = error.parentSchema as JsonSchema | undefined;
  const whole = schema?.['x-error'];
  if (whole) return new ApiError(whole.name, whole.message);
  if (error.keyword === 'required') {
    const property = String(params.missingProperty);
    const own = (error.parentSchema as JsonSchema | undefined)?.properties?.[property]?.['x-missing'];
    return own ? new ApiError('missing_required_field', own) : missingField(fieldName(error.instancePath, property));
  }
  if (error.keyword === 'additionalProperties') {
    const where = fieldName(error.instancePath);
    return validation(`Unknown field \`${where ? `${where}.` : ''}${String(params.additionalProperty)}\`.`);
  }
  const field = fieldName(error.instancePath);
  if (of === 'path' && error.keyword === 'format' && params.format === 'uuid') return validation(`The \`${field}\` must be a valid UUID.`);
  const own = schema?.['x-message'];
  const subject = of === 'field' ? (field ? `The \`${field}\` field` : 'The request body') : `The \`${field}\` parameter`;
  const refusal = (message: string) => (of === 'field' ? validation(message) : new ApiError('invalid_parameter', message));
  const must = (what: string) => refusal(`${subject} must ${what}${own || VALUE_SHOWN.has(error.keyword) ? sent(error.data) : ''}.`);
  if (own) return must(own);
  switch (error.keyword) {
    case 'type': {
      const types = String(params.type).split(',');
      return must(`be ${types.map((t) => ARTICLE[t] ?? t).join(' or ')}`);
    }
    case 'minLength':
      return params.limit === 1 ? must('not be empty') : must(`be at least ${params.limit} characters`);
    case 'maxLength':
      return must(`be at most ${params.limit} characters`);
    case 'minItems':
      return must(`have at least ${params.limit} item${params.limit === 1 ? '' : 's'}`);
    case 'maxItems':
      return must(`have at most ${params.limit} items`);
    case 'minimum':
      return must(`be at least ${params.limit}`);
    case 'maximum':
      return must(`be at most ${params.limit}`);
    case 'enum':
      return must(`be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(' | ')}`);
    case 'const':
      return must(`be ${JSON.stringify(params.allowedValue)}`);
    default:
      if (error.keyword === 'format') return must(`be ${params.format === 'uuid' ? 'an id' : `a valid ${params.format}`}`);
      if (error.keyword === 'pattern') return must('have the documented form');
      return refusal(`${subject} is invalid: ${error.message ?? error.keyword}.`);
  }
}
