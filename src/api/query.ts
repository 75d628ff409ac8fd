// Query parameters as routes read them: one string each. Fastify's parser makes a name given
// more than once (`?endpoint=a&endpoint=b`) an array, which a route's string code would meet
// as a value of another type: refused here, once for every route, except for the parameters a
// route declares as lists (`Route.listQuery`, Resend's `style: form`: `metrics=sent&metrics=delivered`),
// whose values are joined with commas, the form the SDK sends.
import { ApiError } from './errors.js';

/** The query with one string per name (lists joined); throws 422 naming the first other parameter given more than once. */
export function singleValuedQuery(query: unknown, lists: readonly string[] = []): Record<string, string | undefined> {
  const values = { ...((query ?? {}) as Record<string, string | string[] | undefined>) };
  for (const [name, value] of Object.entries(values)) {
    if (!Array.isArray(value)) continue;
    if (!lists.includes(name)) throw new ApiError('invalid_parameter', `The \`${name}\` query parameter must be given once.`);
    values[name] = value.join(',');
  }
  return values as Record<string, string | undefined>;
}
