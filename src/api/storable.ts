// What PostgreSQL can store: its text and json types hold neither NUL nor an unpaired UTF-16
// surrogate (valid JSON may carry both as \u escapes). Every request's path parameters, query
// and body are checked once, before any route runs (http/routes.ts), so no route meets them
// in a write and answers 500.
import { ApiError } from './errors.js';

const storable = (text: string) => !text.includes('\0') && text.isWellFormed();

/** The dotted path of the first key or string in `value` PostgreSQL cannot store, if any. */
function firstUnstorable(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return storable(value) ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnstorable(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (!storable(key)) return path ? `${path} (a key)` : 'a key';
      const found = firstUnstorable(inner, at);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

const WHAT = 'must not contain NUL (\\u0000) or unpaired UTF-16 surrogate characters';

/** Throws 422 naming the first path parameter, query parameter or body field that cannot be stored. */
export function assertStorable(input: { params: unknown; query: unknown; body: unknown; bodyMayHoldEscapes: boolean }): void {
  const param = firstUnstorable(input.params, '');
  if (param !== undefined) throw new ApiError('invalid_parameter', `The \`${param}\` path parameter ${WHAT}.`);
  const query = firstUnstorable(input.query, '');
  if (query !== undefined) throw new ApiError('invalid_parameter', `The \`${query}\` query parameter ${WHAT}.`);
  if (!input.bodyMayHoldEscapes) return;
  const field = firstUnstorable(input.body, '');
  if (field !== undefined) throw new ApiError('validation_error', field === '' ? `The request body ${WHAT}.` : `The \`${field}\` field ${WHAT}.`);
}

/** `body` if PostgreSQL can store it, else null (the request log keeps what it can). */
export const storableOrNull = (body: unknown): unknown => (firstUnstorable(body, '') === undefined ? body : null);

/**
 * Whether JSON text may parse to a string PostgreSQL cannot store: both can only come from a
 * \u escape (a raw NUL is not valid JSON; invalid UTF-8 decodes to U+FFFD), so bodies without
 * one are not walked.
 */
export const mayHoldUnstorableEscapes = (jsonText: string) => /\\u(?:0000|d[89a-f])/i.test(jsonText);
