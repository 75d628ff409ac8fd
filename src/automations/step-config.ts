// The config of each step type (resend-compat-notes §2.12). Its shape is STEP_CONFIG_SCHEMAS',
// one JSON schema per type: graph.ts puts them in the step schema of the routes' bodies, so
// /openapi.json documents them and the request check (request-schema.ts) refuses a malformed
// config before the handler runs. parseStepConfig then makes the stored config (nulls left out,
// a topic id lower-cased) and makes the only checks a schema cannot say:
// - a duration's form ("30 minutes", "1h 30m") and its 30-day limit (duration.ts);
// - the rule trees of condition and of wait_for_event's filter_rule, a recursive grammar with
//   its own parser (rules.ts parseRule); RULE_SCHEMA only documents it.
import { validation } from '../api/errors.js';
import { input, type JsonSchema, nullable, SINGLE_LINE_TEXT, string } from '../api/schema.js';
import type { Body } from '../api/validate.js';
import { NAME_SCHEMA } from '../audience/contact-fields.js';
import { EVENT_NAME_SCHEMA } from '../custom-events/event-fields.js';
import { KEY, MAX_KEY_LENGTH, MAX_VARIABLES } from '../templates/variables.js';
import { MAX_DURATION_MS, parseHumanDuration } from './duration.js';
import { FIELD, MAX_DEPTH, MAX_RULES, OPERATORS, parseRule } from './rules.js';

export const STEP_TYPES = ['trigger', 'send_email', 'delay', 'wait_for_event', 'condition', 'contact_update', 'contact_delete', 'add_to_segment'] as const;
export type StepType = (typeof STEP_TYPES)[number];

/** JSON Schema 2020-12's conditionals, which schema.ts's JsonSchema does not name. */
type ConditionalSchema = JsonSchema & { if?: JsonSchema; then?: JsonSchema; else?: JsonSchema };

/** A value that matches `condition` must match `then`, and one that does not, `otherwise` (if given). */
export function conditional(condition: JsonSchema, then: JsonSchema, otherwise?: JsonSchema, options: JsonSchema = {}): ConditionalSchema {
  return { ...options, if: condition, then, ...(otherwise ? { else: otherwise } : {}) };
}

/** `{var: "event.x"}`: a value read when the step runs (run-context.ts). */
interface VarRef {
  var: string;
}

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);
const MAX_TEXT = 998; // a header line
const MAX_REPLY_TO = 50;

const VAR_REF_MESSAGE = 'be a value or `{"var": "event.<field>"}` (or `contact.<field>`, `wait_events.<event>.<field>`)';
const VAR_REF: JsonSchema = input(
  { var: string({ pattern: FIELD.source, 'x-message': 'name a field: `event.<field>`, `contact.<field>` or `wait_events.<event>.<field>`' }) },
  ['var'],
  {
    description:
      'A value read when the step runs: a field of the event (`event.<field>`), of the contact (`contact.<field>`) or of an event a wait_for_event step received (`wait_events.<event>.<field>`).',
    'x-message': VAR_REF_MESSAGE,
  },
);

type JsonTypes = Exclude<JsonSchema['type'], undefined | string>;

/** A value of one of `types`, or `{var: …}`; a value also satisfies `value` when given. */
function valueOrVar(types: JsonTypes, value?: JsonSchema): JsonSchema {
  const kinds = types.map((t) => (t === 'null' ? 'null' : `a ${t}`)).join(', ');
  return conditional({ type: 'object' }, VAR_REF, value, { type: [...types, 'object'], 'x-message': `be ${kinds} or \`{"var": …}\`` });
}

/** Text that becomes a header line. */
const TEXT = string({ maxLength: MAX_TEXT, pattern: SINGLE_LINE_TEXT, 'x-message': `be one line of text, not blank, of at most ${MAX_TEXT} characters` });

const DURATION_MESSAGE = 'be a duration such as "30 minutes", "1 hour" or "3 days", at most 30 days';
/** Its form and limit are duration.ts's, checked by parseStepConfig. */
const DURATION = string({
  description: 'A duration: "30 minutes", "1 hour", "3 days", "1 week", "1h 30m", "1 hour and 30 minutes"…; at most 30 days.',
  examples: ['30 minutes', '3 days'],
  'x-message': DURATION_MESSAGE,
});

/** Documents the rule grammar; rules.ts parseRule is its check (recursive, at most 5 levels, each operator's value). */
const RULE_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    `A rule: \`{type?: "rule", field, operator, value?}\`, or \`{type: "and" | "or", rules: [rule, …]}\` (1 to ${MAX_RULES} rules, at most ${MAX_DEPTH} levels deep). ` +
    'Checked as the automation is written, with messages naming the rule.',
  properties: {
    type: { description: '"rule" (may be left out on a rule with a `field`), "and" or "or".' },
    field: { description: '`event.<field>`, `contact.<field>` (email, first_name, last_name, unsubscribed or a property) or `wait_events.<event>.<field>`.' },
    operator: { description: `${OPERATORS.map((o) => `"${o}"`).join(' | ')}.` },
    value: {
      description:
        'A string, number, boolean or null with eq and neq; a number with gt, gte, lt, lte; a string with contains, starts_with, ends_with; left out with exists and is_empty.',
    },
    rules: { description: 'The rules an `and` or `or` rule combines.' },
  },
  examples: [
    {
      type: 'and',
      rules: [
        { field: 'event.amount', operator: 'gte', value: 100 },
        { field: 'contact.plan', operator: 'eq', value: 'pro' },
      ],
    },
  ],
};

const TEMPLATE_REF = input(
  {
    id: string({ pattern: '\\S', 'x-message': 'be a template id or alias', description: 'A published template of the account.' }),
    variables: nullable({
      type: 'object',
      maxProperties: MAX_VARIABLES,
      propertyNames: {
        maxLength: MAX_KEY_LENGTH,
        pattern: KEY.source,
        'x-message': `have keys of ASCII letters, digits and \`_\` (at most ${MAX_KEY_LENGTH})`,
      },
      additionalProperties: valueOrVar(['string', 'number', 'boolean']),
      'x-message': `be an object of at most ${MAX_VARIABLES} variables`,
    }),
  },
  ['id'],
  { 'x-message': 'be an object: `{id, variables?}`' },
);

const CONTACT_FIELDS = ['first_name', 'last_name', 'unsubscribed', 'properties'];

/**
 * Each step type's config: in the routes' bodies (graph.ts GRAPH_SCHEMAS) through
 * `if: {type: T} then: {config: STEP_CONFIG_SCHEMAS[T]}`. An optional field may be null: left out (but a
 * contact_update name, which null clears).
 */
export const STEP_CONFIG_SCHEMAS: Record<StepType, JsonSchema> = {
  trigger: input({ event_name: EVENT_NAME_SCHEMA }, ['event_name'], { description: 'Starts a run for each event of this name sent.' }),
  send_email: input(
    {
      template: TEMPLATE_REF,
      subject: nullable(TEXT),
      from: nullable(TEXT),
      reply_to: nullable({
        type: ['string', 'array'],
        maxLength: MAX_TEXT,
        pattern: SINGLE_LINE_TEXT,
        items: TEXT,
        minItems: 1,
        maxItems: MAX_REPLY_TO,
        'x-message': `be an address, or an array of 1 to ${MAX_REPLY_TO} addresses, each one line`,
      }),
      topic_id: nullable(string({ format: 'uuid', 'x-message': 'be a topic id', description: 'Sent only if the contact is subscribed to this topic.' })),
    },
    ['template'],
    { description: "Sends a published template to the run's contact." },
  ),
  delay: input({ duration: DURATION }, ['duration'], { description: 'Waits this long.' }),
  wait_for_event: input({ event_name: EVENT_NAME_SCHEMA, timeout: nullable(DURATION), filter_rule: nullable(RULE_SCHEMA) }, ['event_name'], {
    description: "Waits for an event of this name (for the run's contact, matching filter_rule if given), at most `timeout`.",
  }),
  condition: { ...RULE_SCHEMA, description: `Takes condition_met or condition_not_met. ${RULE_SCHEMA.description}` },
  contact_update: input(
    {
      first_name: valueOrVar(['string', 'null'], NAME_SCHEMA),
      last_name: valueOrVar(['string', 'null'], NAME_SCHEMA),
      unsubscribed: valueOrVar(['boolean']),
      properties: {
        type: 'object',
        additionalProperties: valueOrVar(['string', 'number', 'boolean', 'null']),
        'x-message': 'be an object of property keys to values',
      },
    },
    [],
    {
      description: "Changes the run's contact. A name is held to the contacts API's rules.",
      anyOf: [{ minProperties: 1, 'x-message': `change at least one of ${CONTACT_FIELDS.join(', ')}` }],
    },
  ),
  contact_delete: input({}, [], { description: "Deletes the run's contact. No fields." }),
  add_to_segment: input({ segment_id: string({ format: 'uuid', 'x-message': 'be a segment id' }) }, ['segment_id'], {
    description: "Adds the run's contact to the segment.",
  }),
};

export function isVarRef(value: unknown): value is VarRef {
  return isObject(value) && Object.keys(value).length === 1 && typeof value.var === 'string';
}

const withoutNulls = (config: Body): Body => Object.fromEntries(Object.entries(config).filter(([, value]) => value !== null));

/** `, not "soon"`; nothing for a value too long to quote (as request-schema.ts says it). */
function sent(value: unknown): string {
  const text = JSON.stringify(value);
  return text !== undefined && text.length <= 80 ? `, not ${text}` : '';
}

/** A duration STEP_CONFIG_SCHEMAS let through (a string): one duration.ts reads, at most 30 days. */
function checkDuration(value: unknown, path: string): void {
  const ms = typeof value === 'string' ? parseHumanDuration(value) : undefined;
  if (ms === undefined || ms > MAX_DURATION_MS) throw validation(`The \`${path}\` field must ${DURATION_MESSAGE}${sent(value)}.`);
}

const ruleFail = (message: string) => validation(`The ${message}`);

/**
 * The stored config of a step of `type` whose config passed STEP_CONFIG_SCHEMAS[type]; `path`
 * names it in messages (`steps[1].config`). Checks only what the schema cannot say.
 */
export function parseStepConfig(type: StepType, config: Body, path: string): Body {
  switch (type) {
    case 'send_email': {
      const out = withoutNulls(config);
      const template = withoutNulls(out.template as Body);
      if (typeof out.topic_id === 'string') out.topic_id = out.topic_id.toLowerCase();
      return { ...out, template };
    }
    case 'delay':
      checkDuration(config.duration, `${path}.duration`);
      return config;
    case 'wait_for_event': {
      const out = withoutNulls(config);
      if (out.timeout !== undefined) checkDuration(out.timeout, `${path}.timeout`);
      if (out.filter_rule !== undefined) out.filter_rule = parseRule(out.filter_rule, `${path}.filter_rule`, ruleFail);
      return out;
    }
    case 'condition':
      return parseRule(config, path, ruleFail) as unknown as Body;
    default:
      return config;
  }
}
