// The bodies of POST and PATCH /templates and POST /templates/preview (resend-compat-notes
// §2.9): their schemas, which check them before the handlers run (request-schema.ts), and what
// the handlers make of a checked body. `from` and `reply_to` are checked for shape only: like
// any email's, they are parsed and checked against the account's verified domains when an
// email is sent with the template (a template may be written before its domain is verified).
import { validation } from '../api/errors.js';
import { array, input, type JsonSchema, nullable, oneOfValues, string } from '../api/schema.js';
import { checkValue, KEY, MAX_KEY_LENGTH, MAX_VARIABLES, placeholderKeys, RESERVED_KEYS, type VariableType, type VariableValue } from './variables.js';

const MAX_NAME = 255;
const MAX_ALIAS = 100;
const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const MAX_REPLY_TO = 50;
const MAX_ADDRESS = 320;
const ONE_LINE = '^[^\\r\\n\\u0000]*$';

interface VariableInput {
  key: string;
  type: VariableType;
  fallback_value: VariableValue | null;
}

/** A body of POST or PATCH /templates once it passed its schema; null clears an optional field. */
export interface TemplateBody {
  name?: string;
  alias?: string | null;
  from?: string | null;
  subject?: string | null;
  reply_to?: string | string[] | null;
  html?: string;
  text?: string | null;
  variables?: { key: string; type: VariableType; fallback_value?: string | number | null }[] | null;
}

/** The body of POST /templates/preview once it passed PREVIEW_TEMPLATE_SCHEMA. */
export interface PreviewBody extends Pick<TemplateBody, 'subject' | 'text' | 'variables'> {
  html: string;
  values?: Record<string, string | number>;
}

/** The fields as stored; on PATCH, undefined means "leave as is" and null means "clear". */
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

/** `pattern`, refused in its own words while the field's type and length keep theirs. */
const worded = (pattern: string, message: string): Pick<JsonSchema, 'anyOf'> => ({ anyOf: [{ pattern, 'x-message': message }] });
/**
 * A field PATCH may change but not clear: its null is kept (not read as left out,
 * request-schema.ts) and refused.
 */
const notClearable = (schema: JsonSchema): JsonSchema => ({
  anyOf: [schema, { type: 'null' }],
  not: { type: 'null' },
  'x-message': 'keep a value (it cannot be cleared)',
});

/** One line; whether it is an address is judged by `address` (and again when an email is sent with it). */
const ADDRESS_SCHEMA = string({ ...worded(ONE_LINE, 'not contain line breaks'), description: '`addr` or `Name <addr>`, at most 320 characters.' });
const NAME_SCHEMA = string({ maxLength: MAX_NAME, ...worded('\\S', 'not be empty') });
const HTML_SCHEMA = string({ ...worded('\\S', 'not be empty'), description: 'May hold `{{{KEY}}}` or `{{{KEY|fallback}}}` placeholders of its variables.' });
const SUBJECT_SCHEMA = nullable(string({ maxLength: 998, ...worded(ONE_LINE, 'not contain line breaks') }));
const VARIABLES_SCHEMA = nullable(
  array(
    input(
      {
        key: string({
          maxLength: MAX_KEY_LENGTH,
          pattern: KEY.source,
          'x-message': `be ASCII letters, digits and underscores, at most ${MAX_KEY_LENGTH} characters`,
        }),
        type: oneOfValues(['string', 'number']),
        fallback_value: { type: ['string', 'number', 'null'], description: "Of the variable's type." },
      },
      ['key', 'type'],
      { 'x-message': 'be a `{key, type, fallback_value}` object' },
    ),
    {
      maxItems: MAX_VARIABLES,
      'x-message': `be an array of at most ${MAX_VARIABLES} \`{key, type, fallback_value}\` objects`,
      description: 'Keys unique, none of the reserved ones (FIRST_NAME, LAST_NAME, EMAIL, UNSUBSCRIBE_URL, contact, this); null clears them.',
    },
  ),
);

function fieldSchemas(patch: boolean): Record<string, JsonSchema> {
  return {
    name: patch ? notClearable(NAME_SCHEMA) : NAME_SCHEMA,
    alias: nullable(
      string({
        maxLength: MAX_ALIAS,
        anyOf: [
          {
            pattern: ALIAS.source,
            // An alias shaped like an id would make GET /templates/:id ambiguous.
            not: { type: 'string', format: 'uuid' },
            'x-message': 'contain only ASCII letters, digits, `.`, `_` and `-`, start with a letter or digit, and not look like a template id',
          },
        ],
        description: 'Another name to address it by; not shaped like an id.',
      }),
    ),
    from: nullable(ADDRESS_SCHEMA),
    subject: SUBJECT_SCHEMA,
    reply_to: {
      type: ['string', 'array', 'null'],
      ...worded(ONE_LINE, 'not contain line breaks'),
      items: ADDRESS_SCHEMA,
      maxItems: MAX_REPLY_TO,
      description: 'An address or a list of them (`addr` or `Name <addr>`).',
    },
    html: patch ? notClearable(HTML_SCHEMA) : HTML_SCHEMA,
    text: nullable(string()),
    variables: VARIABLES_SCHEMA,
  };
}
/** The bodies of POST and PATCH /templates: their check (request-schema.ts) and docs. */
export const CREATE_TEMPLATE_SCHEMA = input(fieldSchemas(false), ['name', 'html']);
export const UPDATE_TEMPLATE_SCHEMA = input(fieldSchemas(true));

/** POST /templates/preview's body: a draft's content, as the editor holds it, and sample values. */
export const PREVIEW_TEMPLATE_SCHEMA = input(
  {
    subject: SUBJECT_SCHEMA,
    html: HTML_SCHEMA,
    text: nullable(string()),
    variables: VARIABLES_SCHEMA,
    values: {
      type: 'object',
      additionalProperties: { type: ['string', 'number'] },
      description: "Sample values by key, as an email's `template.variables`; a variable without one shows its fallback.",
    },
  },
  ['html'],
);

function address(value: string, field: string): string {
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_ADDRESS || !trimmed.includes('@')) {
    throw validation(`Invalid \`${field}\` field. The email address needs to follow the \`email@example.com\` or \`Name <email@example.com>\` format.`);
  }
  return trimmed;
}

function replyTo(value: string | string[] | null): string[] | null {
  if (value === null) return null;
  const list = (Array.isArray(value) ? value : [value]).map((v) => address(v, 'reply_to'));
  return list.length ? list : null;
}

/** Keys unique and not reserved; each fallback of its variable's type. null: no variables. */
function variables(value: NonNullable<TemplateBody['variables']> | null): VariableInput[] {
  const seen = new Set<string>();
  return (value ?? []).map((v) => {
    const key = v.key;
    if (RESERVED_KEYS.has(key)) throw validation(`The variable key \`${key}\` is reserved.`);
    if (seen.has(key)) throw validation(`The variable key \`${key}\` is defined more than once.`);
    seen.add(key);
    const fallback =
      v.fallback_value === undefined || v.fallback_value === null ? null : checkValue(v.fallback_value, v.type, `The fallback value of \`${key}\``);
    if (v.type === 'string' && typeof fallback === 'number') throw validation(`The fallback value of \`${key}\` must be a string.`);
    return { key, type: v.type, fallback_value: fallback };
  });
}

/**
 * POST /templates/preview: the draft is checked as saving checks it (every placeholder
 * defined), so what previews is what can be saved.
 */
export function previewDraft(body: PreviewBody): {
  subject: string | null;
  html: string;
  text: string | null;
  variables: VariableInput[];
  values: Record<string, string | number>;
} {
  const draft = { subject: body.subject ?? null, html: body.html, text: body.text ?? null, variables: variables(body.variables ?? null) };
  checkPlaceholders(draft);
  return { ...draft, values: body.values ?? {} };
}

/** POST /templates: every placeholder must be defined. */
export function createFields(body: TemplateBody): TemplateFields {
  const fields = templateFields(body);
  checkPlaceholders(fields);
  return fields;
}

/** The fields given in a checked body, addresses trimmed; PATCH checks the merged draft itself. */
export function templateFields(body: TemplateBody): TemplateFields {
  const fields: TemplateFields = {};
  if (body.name !== undefined) fields.name = body.name;
  if (body.html !== undefined) fields.html = body.html;
  if (body.alias !== undefined) fields.alias = body.alias;
  if (body.from !== undefined) fields.from = body.from === null ? null : address(body.from, 'from');
  if (body.subject !== undefined) fields.subject = body.subject;
  if (body.reply_to !== undefined) fields.replyTo = replyTo(body.reply_to);
  if (body.text !== undefined) fields.text = body.text;
  if (body.variables !== undefined) fields.variables = variables(body.variables);
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
