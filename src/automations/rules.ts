// The rule trees of condition steps and of wait_for_event's filter_rule (resend-compat-notes
// §2.12): `{type:'rule', field, operator, value}` leaves under `{type:'and'|'or', rules}`.
// Fields name data by namespace: `event.<key>` (the event's payload), `contact.<field>` (the
// contact: email, first_name, last_name, unsubscribed, or a property) and
// `wait_events.<event name>.<key>` (a payload a wait_for_event step received).
// parseRule checks a tree when an automation is written; evaluateRule runs it in a step.
import type { Body } from '../api/validate.js';

export type Operator = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'contains' | 'starts_with' | 'ends_with' | 'exists' | 'is_empty';
export type Rule = { type: 'rule'; field: string; operator: Operator; value?: string | number | boolean | null } | { type: 'and' | 'or'; rules: Rule[] };

const VALUE_KIND: Record<Operator, 'any' | 'number' | 'string' | 'none'> = {
  eq: 'any',
  neq: 'any',
  gt: 'number',
  gte: 'number',
  lt: 'number',
  lte: 'number',
  contains: 'string',
  starts_with: 'string',
  ends_with: 'string',
  exists: 'none',
  is_empty: 'none',
};
export const OPERATORS = Object.keys(VALUE_KIND) as Operator[];
export const FIELD = /^(event|contact|wait_events)\.[^.\s][^\s]*$/;
export const MAX_DEPTH = 5;
export const MAX_RULES = 50;

const isObject = (v: unknown): v is Body => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Checks a rule tree; `fail` turns a message about `path` into the caller's ApiError. */
export function parseRule(value: unknown, path: string, fail: (message: string) => Error, depth = 0): Rule {
  if (!isObject(value)) throw fail(`\`${path}\` must be a rule object.`);
  // A leaf may leave out `type` (Resend's filter_rule examples do).
  const type = value.type ?? (value.field !== undefined ? 'rule' : undefined);
  if (type === 'and' || type === 'or') {
    for (const key of Object.keys(value)) if (key !== 'type' && key !== 'rules') throw fail(`\`${path}.${key}\` is not a field of an \`${type}\` rule.`);
    if (depth >= MAX_DEPTH) throw fail(`\`${path}\` nests rules more than ${MAX_DEPTH} levels deep.`);
    const rules = value.rules;
    if (!Array.isArray(rules) || rules.length === 0 || rules.length > MAX_RULES) {
      throw fail(`\`${path}.rules\` must be an array of 1 to ${MAX_RULES} rules.`);
    }
    return { type, rules: rules.map((r, i) => parseRule(r, `${path}.rules[${i}]`, fail, depth + 1)) };
  }
  if (type !== 'rule') throw fail(`\`${path}.type\` must be one of "rule" | "and" | "or".`);
  for (const key of Object.keys(value)) {
    if (!['type', 'field', 'operator', 'value'].includes(key)) throw fail(`\`${path}.${key}\` is not a field of a rule.`);
  }
  if (typeof value.field !== 'string' || !FIELD.test(value.field)) {
    throw fail(`\`${path}.field\` must be a string starting with \`event.\`, \`contact.\` or \`wait_events.\`.`);
  }
  const operator = value.operator as Operator;
  if (typeof operator !== 'string' || !OPERATORS.includes(operator)) {
    throw fail(`\`${path}.operator\` must be one of ${OPERATORS.map((o) => `"${o}"`).join(' | ')}.`);
  }
  const rule: Rule = { type: 'rule', field: value.field, operator };
  const kind = VALUE_KIND[operator];
  if (kind === 'none') {
    if (value.value !== undefined) throw fail(`\`${path}.value\` must be left out with the \`${operator}\` operator.`);
    return rule;
  }
  const v = value.value;
  const ok =
    kind === 'number'
      ? typeof v === 'number' && Number.isFinite(v)
      : kind === 'string'
        ? typeof v === 'string'
        : v === null || ['string', 'number', 'boolean'].includes(typeof v);
  if (!ok) {
    const expected = kind === 'any' ? 'a string, number, boolean or null' : `a ${kind}`;
    throw fail(`\`${path}.value\` must be ${expected} with the \`${operator}\` operator.`);
  }
  return { ...rule, value: v as string | number | boolean | null };
}

/** Whether the rule holds; `read` gives a field's value (undefined when absent). */
export function evaluateRule(rule: Rule, read: (field: string) => unknown): boolean {
  if (rule.type !== 'rule') {
    return rule.type === 'and' ? rule.rules.every((r) => evaluateRule(r, read)) : rule.rules.some((r) => evaluateRule(r, read));
  }
  const actual = read(rule.field);
  const expected = rule.value;
  switch (rule.operator) {
    case 'eq':
      return equal(actual, expected);
    case 'neq':
      return !equal(actual, expected);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return compare(rule.operator, actual, expected as number);
    case 'contains':
      if (Array.isArray(actual)) return actual.includes(expected);
      return typeof actual === 'string' && actual.includes(expected as string);
    case 'starts_with':
      return typeof actual === 'string' && actual.startsWith(expected as string);
    case 'ends_with':
      return typeof actual === 'string' && actual.endsWith(expected as string);
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'is_empty':
      return isEmpty(actual);
  }
}

/** A number written in decimal ("42", "-1.5", "2e3"); NaN for anything else, "0x10" included. */
const DECIMAL = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?\s*$/i;
const decimal = (text: string) => (DECIMAL.test(text) ? Number(text) : NaN);

/** null matches an absent field too; a number matches its decimal string (properties, payloads). */
function equal(actual: unknown, expected: unknown): boolean {
  if (expected === null) return actual === null || actual === undefined;
  if (typeof expected === 'number' && typeof actual === 'string') return decimal(actual) === expected;
  if (typeof expected === 'string' && typeof actual === 'number') return decimal(expected) === actual;
  return actual === expected;
}

function compare(operator: 'gt' | 'gte' | 'lt' | 'lte', actual: unknown, expected: number): boolean {
  const n = typeof actual === 'number' ? actual : typeof actual === 'string' ? decimal(actual) : NaN;
  if (!Number.isFinite(n)) return false;
  return operator === 'gt' ? n > expected : operator === 'gte' ? n >= expected : operator === 'lt' ? n < expected : n <= expected;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.keys(value).length === 0;
  return false;
}
