// Small field readers for request bodies, producing Resend's error names and messages.
// Each returns the typed value or throws an ApiError; unknown fields are refused so that a
// misspelt or unsupported option is never silently dropped.
import { type ApiError, missingField, validation } from './errors.js';

export type Body = Record<string, unknown>;

export function objectBody(body: unknown): Body {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw validation('The request body must be a JSON object.');
  return body as Body;
}

export function rejectUnknown(body: Body, allowed: readonly string[], where = ''): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw validation(`Unknown field \`${where}${key}\`.`);
  }
}

export function optionalString(body: Body, field: string, options: { max?: number; allowEmpty?: boolean } = {}): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw validation(`The \`${field}\` field must be a string.`);
  if (!options.allowEmpty && value.length === 0) throw validation(`The \`${field}\` field must not be empty.`);
  if (options.max !== undefined && value.length > options.max) {
    throw validation(`The \`${field}\` field must be at most ${options.max} characters.`);
  }
  return value;
}

export function requiredString(body: Body, field: string, options: { max?: number; allowEmpty?: boolean } = {}): string {
  if (body[field] === undefined || body[field] === null) throw missingField(field);
  return optionalString(body, field, options)!;
}

export function optionalBoolean(body: Body, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw validation(`The \`${field}\` field must be a boolean.`);
  return value;
}

export function optionalEnum<T extends string>(body: Body, field: string, values: readonly T[], error?: ApiError): T | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !values.includes(value as T)) {
    throw error ?? validation(`The \`${field}\` field must be one of ${values.map((v) => `"${v}"`).join(' | ')}.`);
  }
  return value as T;
}

/** CR or LF in a value that becomes a header line would let a caller inject headers. */
export function assertSingleLine(value: string, field: string): void {
  if (/[\r\n\0]/.test(value)) throw validation(`The \`${field}\` field must not contain line breaks.`);
}
