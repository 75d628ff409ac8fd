// What is left of the hand readers of requests: request bodies are checked by their documented
// schemas (request-schema.ts); query parameters are still read here, one by one.
import { type ApiError, validation } from './errors.js';

/** A JSON object from a request, as the schema check passed it. */
export type Body = Record<string, unknown>;

export function optionalEnum<T extends string>(body: Body, field: string, values: readonly T[], error?: ApiError): T | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !values.includes(value as T)) {
    throw error ?? validation(`The \`${field}\` field must be one of ${values.map((v) => `"${v}"`).join(' | ')}.`);
  }
  return value as T;
}
