// Query parameters as routes read them: one string each. Fastify's parser makes a name given
// more than once (`?endpoint=a&endpoint=b`) an array, which no route reads (the SDK joins
// lists with commas: `metrics=sent,delivered`), so it is refused here, once for every route,
// rather than met by a route's string code as a value of another type.
import { ApiError } from './errors.js';

/** The query with one string per name; throws 422 naming the first parameter given more than once. */
export function singleValuedQuery(query: unknown): Record<string, string | undefined> {
  const values = (query ?? {}) as Record<string, string | string[] | undefined>;
  for (const [name, value] of Object.entries(values)) {
    if (Array.isArray(value)) throw new ApiError('invalid_parameter', `The \`${name}\` query parameter must be given once.`);
  }
  return values as Record<string, string | undefined>;
}
