// The fields of POST and PATCH /templates (resend-compat-notes §2.9), checked once here.
// `from` and `reply_to` are checked for shape only: like any email's, they are parsed and
// checked against the account's verified domains when an email is sent with the template
// (a template may be written before its domain is verified).
import { missingField, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { array, input, type JsonSchema, nullable, number, oneOfValues, string } from '../api/schema.js';
import { assertSingleLine, rejectUnknown, type Body } from '../api/validate.js';
import { checkValue, KEY, MAX_KEY_LENGTH, MAX_VARIABLES, placeholderKeys, RESERVED_KEYS, type VariableType, type VariableValue } from './variables.js';

const FIELDS = ['name', 'alias', 'from', 'subject', 'reply_to', 'html', 'text', 'variables'];
const MAX_NAME = 255;
const MAX_ALIAS = 100;
const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_REPLY_TO = 50;
const MAX_ADDRESS = 320;

interface VariableInput {
  key: string;
  type: VariableType;
  fallback_value: VariableValue | null;
}

/** The parsed fields; on PATCH, undefined means "leave as is" and null means "clear". */
interface TemplateFields {
  name?: string;
  alias?: string | null;
  from?: string | null;
  subject?: string | null;
  replyTo?: string[] | null;
  html?: string;
  text?: string | null;
  variables?: VariableInput[];
}

const given = (body: Body, field: string) => body[field] !== undefined;

function text(body: Body, field: string, options: { required?: boolean; max?: number; singleLine?: boolean } = {}): string | null | undefined {
  const value = body[field];
  if (value === undefined || value === null) {
    if (options.required) throw missingField(field);
    return value as null | undefined;
  }
  if (typeof value !== 'string') throw validation(`The \`${field}\` field must be a string.`);
  if (options.required && value.trim() === '') throw validation(`The \`${field}\` field must not be empty.`);
  if (options.max !== undefined && value.length > options.max) throw validation(`The \`${field}\` field must be at most ${options.max} characters.`);
  if (options.singleLine) assertSingleLine(value, field);
  return value;
}

function address(value: unknown, field: string): string {
  if (typeof value !== 'string') throw validation(`The \`${field}\` field must be a string or an array of strings.`);
  assertSingleLine(value, field);
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_ADDRESS || !trimmed.includes('@')) {
    throw validation(`Invalid \`${field}\` field. The email address needs to follow the \`email@example.com\` or \`Name <email@example.com>\` format.`);
  }
  return trimmed;
}

function alias(body: Body): string | null | undefined {
  const value = text(body, 'alias', { max: MAX_ALIAS });
  if (value === undefined || value === null) return value;
  // An alias shaped like an id would make GET /templates/:id ambiguous.
  if (!ALIAS.test(value) || isUuid(value)) {
    throw validation(
      'The `alias` field may contain only ASCII letters, digits, `.`, `_` and `-`, must start with a letter or digit, and must not look like a template id.',
    );
  }
  return value;
}

function replyTo(body: Body): string[] | null | undefined {
  const value = body.reply_to;
  if (value === undefined || value === null) return value as null | undefined;
  const list = (Array.isArray(value) ? value : [value]).map((v) => address(v, 'reply_to'));
  if (list.length > MAX_REPLY_TO) throw validation(`The \`reply_to\` field must have at most ${MAX_REPLY_TO} addresses.`);
  return list.length ? list : null;
}

function variables(body: Body): VariableInput[] | undefined {
  const value = body.variables;
  if (value === undefined) return undefined;
  if (value === null) return [];
  if (!Array.isArray(value)) throw validation('The `variables` field must be an array of `{key, type, fallback_value}` objects.');
  if (value.length > MAX_VARIABLES) throw validation(`A template can have at most ${MAX_VARIABLES} variables.`);
  const seen = new Set<string>();
  return value.map((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw validation('The `variables` field must be an array of `{key, type, fallback_value}` objects.');
    }
    const v = item as Body;
    rejectUnknown(v, ['key', 'type', 'fallback_value'], `variables[${i}].`);
    if (v.key === undefined || v.key === null) throw missingField(`variables[${i}].key`);
    if (v.type === undefined || v.type === null) throw missingField(`variables[${i}].type`);
    const key = v.key;
    if (typeof key !== 'string' || !KEY.test(key) || key.length > MAX_KEY_LENGTH) {
      throw validation(`Variable keys may contain only ASCII letters, digits and underscores, at most ${MAX_KEY_LENGTH} characters (\`variables[${i}].key\`).`);
    }
    if (RESERVED_KEYS.has(key)) throw validation(`The variable key \`${key}\` is reserved.`);
    if (seen.has(key)) throw validation(`The variable key \`${key}\` is defined more than once.`);
    seen.add(key);
    if (v.type !== 'string' && v.type !== 'number') throw validation(`The \`variables[${i}].type\` field must be "string" | "number".`);
    const fallback =
      v.fallback_value === undefined || v.fallback_value === null ? null : checkValue(v.fallback_value, v.type, `The fallback value of \`${key}\``);
    if (v.type === 'string' && typeof fallback === 'number') throw validation(`The fallback value of \`${key}\` must be a string.`);
    return { key, type: v.type, fallback_value: fallback };
  });
}

const addressSchema = string({ maxLength: MAX_ADDRESS, pattern: '@', description: '`addr` or `Name <addr>`.' });
const FIELD_SCHEMAS: Record<string, JsonSchema> = {
  name: string({ maxLength: MAX_NAME, pattern: '\\S' }),
  alias: nullable(string({ maxLength: MAX_ALIAS, pattern: ALIAS.source, description: 'Another name to address it by; not shaped like an id.' })),
  from: nullable(addressSchema),
  subject: nullable(string({ maxLength: 998, pattern: '^[^\\r\\n\\u0000]*$' })),
  reply_to: nullable({ oneOf: [addressSchema, array(addressSchema, { maxItems: MAX_REPLY_TO })] }),
  html: string({ pattern: '\\S', description: 'May hold `{{{KEY}}}` or `{{{KEY|fallback}}}` placeholders of its variables.' }),
  text: nullable(string()),
  variables: nullable(
    array(
      input(
        {
          key: string({ maxLength: MAX_KEY_LENGTH, pattern: KEY.source }),
          type: oneOfValues(['string', 'number']),
          fallback_value: nullable({ oneOf: [string(), number()] }),
        },
        ['key', 'type'],
      ),
      { maxItems: MAX_VARIABLES },
    ),
  ),
};
/** The bodies parseCreate and parseUpdate take, for the routes' docs. */
export const CREATE_TEMPLATE_SCHEMA = input(FIELD_SCHEMAS, ['name', 'html']);
export const UPDATE_TEMPLATE_SCHEMA = input(FIELD_SCHEMAS);

/** POST /templates/preview's body: a draft's content, as the editor holds it, and sample values. */
export const PREVIEW_TEMPLATE_SCHEMA = input(
  {
    subject: FIELD_SCHEMAS.subject!,
    html: FIELD_SCHEMAS.html!,
    text: FIELD_SCHEMAS.text!,
    variables: FIELD_SCHEMAS.variables!,
    values: {
      type: 'object',
      additionalProperties: { oneOf: [string(), number()] },
      description: "Sample values by key, as an email's `template.variables`; a variable without one shows its fallback.",
    },
  },
  ['html'],
);

/**
 * POST /templates/preview: html is required; the draft is checked as saving checks it (every
 * placeholder defined), so what previews is what can be saved.
 */
export function parsePreview(raw: Body): { subject: string | null; html: string; text: string | null; variables: VariableInput[]; values: Body } {
  rejectUnknown(raw, ['subject', 'html', 'text', 'variables', 'values']);
  const html = text(raw, 'html', { required: true })!;
  const subject = text(raw, 'subject', { singleLine: true, max: 998 }) ?? null;
  const body = text(raw, 'text') ?? null;
  const defined = variables(raw) ?? [];
  const values = raw.values ?? {};
  if (values === null || typeof values !== 'object' || Array.isArray(values)) {
    throw validation('The `values` field must be an object of strings and numbers.');
  }
  checkPlaceholders({ subject, html, text: body, variables: defined });
  return { subject, html, text: body, variables: defined, values: values as Body };
}

/** POST /templates: name and html are required. */
export function parseCreate(raw: Body): TemplateFields {
  rejectUnknown(raw, FIELDS);
  const fields = parseFields(raw, true);
  checkPlaceholders(fields);
  return fields;
}

/** PATCH /templates/:id: every field optional; `merged` is checked as the new draft. */
export function parseUpdate(raw: Body): TemplateFields {
  rejectUnknown(raw, FIELDS);
  return parseFields(raw, false);
}

function parseFields(body: Body, create: boolean): TemplateFields {
  const fields: TemplateFields = {};
  if (create || given(body, 'name')) fields.name = text(body, 'name', { required: true, max: MAX_NAME })!;
  if (create || given(body, 'html')) fields.html = text(body, 'html', { required: true })!;
  if (given(body, 'alias')) fields.alias = alias(body);
  if (given(body, 'from')) fields.from = body.from === null ? null : address(body.from, 'from');
  if (given(body, 'subject')) fields.subject = text(body, 'subject', { singleLine: true, max: 998 });
  if (given(body, 'reply_to')) fields.replyTo = replyTo(body);
  if (given(body, 'text')) fields.text = text(body, 'text');
  if (given(body, 'variables')) fields.variables = variables(body);
  return fields;
}

/**
 * Every placeholder must name a defined variable (or a reserved one, which broadcasts fill
 * from the contact), as Resend checks when a template is saved.
 */
export function checkPlaceholders(draft: { html?: string | null; text?: string | null; subject?: string | null; variables?: { key: string }[] }): void {
  const defined = new Set((draft.variables ?? []).map((v) => v.key));
  for (const source of [draft.subject, draft.html, draft.text]) {
    for (const key of placeholderKeys(source)) {
      if (!defined.has(key) && !RESERVED_KEYS.has(key)) {
        throw validation(`Variable '${key}' is used in the template but not defined in the variables list`);
      }
    }
  }
}

/**
 * An alias already used by another template of the account. 422 validation_error, not 409:
 * in Resend's catalogue 409 means an idempotency or locking conflict (the SDK knows no other
 * 409 name), and a field value the API refuses is a 422 validation_error.
 */
export function aliasTaken(alias: string | null | undefined) {
  return validation(`A template with the alias \`${alias}\` already exists.`);
}

/** The unique index on (account_id, alias) refused a write (a concurrent create included). */
export const isAliasClash = (err: unknown) =>
  (err as { code?: string; constraint?: string }).code === '23505' && (err as { constraint?: string }).constraint === 'templates_alias';
