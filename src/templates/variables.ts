// Template variables (resend-compat-notes §2.9): their definitions, the `{{{KEY}}}` and
// `{{{KEY|fallback}}}` placeholders, and rendering a template's strings at send time.
//
// A value is resolved in this order: the value sent with the email, the placeholder's inline
// fallback, the variable's fallback_value; with none of them the send is a validation error
// naming the variable (interface-spec §2.2 rule 3). Every substituted value is data, never
// markup: HTML-escaped in html, as is in text and subject (the subject is a header, checked
// for line breaks after rendering by the validate step, not escaped).
import { validation } from '../api/errors.js';
import { escapeHtml } from '../message/escape-html.js';

export type VariableType = 'string' | 'number';
export type VariableValue = string | number;

/** A variable as stored in a template (and returned by GET /templates/:id). */
export interface TemplateVariable {
  id: string;
  key: string;
  type: VariableType;
  fallback_value: VariableValue | null;
  created_at: string;
  updated_at: string;
}

export const MAX_VARIABLES = 50;
export const MAX_KEY_LENGTH = 50;
export const MAX_STRING_VALUE = 2000;
export const KEY = /^[A-Za-z0-9_]+$/;
/** Filled from the contact in broadcasts; a template may use them but not define them. */
export const RESERVED_KEYS = new Set(['FIRST_NAME', 'LAST_NAME', 'EMAIL', 'UNSUBSCRIBE_URL', 'contact', 'this']);

/** `{{{KEY}}}` or `{{{KEY|fallback}}}`; the fallback runs to the first `}`. */
const PLACEHOLDER = /\{\{\{\s*([A-Za-z0-9_]+)\s*(?:\|([^}]*))?\}\}\}/g;

/** The keys a string's placeholders use, in order of first use. */
export function placeholderKeys(source: string | null | undefined): string[] {
  if (!source) return [];
  return [...new Set([...source.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** Checks one value (sent with an email, or a fallback_value) against a variable's type. */
export function checkValue(value: unknown, type: VariableType | undefined, what: string): VariableValue {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) {
      throw validation(`${what} must be a finite number of at most ${Number.MAX_SAFE_INTEGER}.`);
    }
    return value;
  }
  if (typeof value === 'string') {
    if (type === 'number') throw validation(`${what} must be a number.`);
    if (value.length > MAX_STRING_VALUE) throw validation(`${what} must be at most ${MAX_STRING_VALUE} characters.`);
    return value;
  }
  throw validation(`${what} must be a string or a number.`);
}

export interface RenderInput {
  /** The template's variable definitions, by key. */
  definitions: Map<string, Pick<TemplateVariable, 'type' | 'fallback_value'>>;
  /** The values sent with the email, already checked with checkValue. */
  values: Record<string, VariableValue>;
}

/** Renders one template string; `html` escapes every substituted value. */
export function renderString(source: string, input: RenderInput, mode: 'html' | 'text'): string {
  return source.replace(PLACEHOLDER, (_match, key: string, inline: string | undefined) => {
    let value: VariableValue | null | undefined = Object.hasOwn(input.values, key) ? input.values[key] : undefined;
    if (value === undefined && inline !== undefined) value = inline;
    if (value === undefined || value === null) value = input.definitions.get(key)?.fallback_value;
    if (value === undefined || value === null) {
      throw validation(`Missing value for the template variable \`${key}\`: send it in \`template.variables\` or give it a fallback value.`);
    }
    const text = String(value);
    return mode === 'html' ? escapeHtml(text) : text;
  });
}

/**
 * The variables as stored, from a create or update's definitions: a variable that keeps its
 * key keeps its id and created_at.
 */
export function storedVariables(
  inputs: { key: string; type: VariableType; fallback_value: VariableValue | null }[],
  previous: TemplateVariable[],
  now: string,
  newId: () => string,
): TemplateVariable[] {
  const before = new Map(previous.map((v) => [v.key, v]));
  return inputs.map((v) => {
    const old = before.get(v.key);
    return { id: old?.id ?? newId(), key: v.key, type: v.type, fallback_value: v.fallback_value, created_at: old?.created_at ?? now, updated_at: now };
  });
}
