// A route as a concept declares it: framework-free, so concepts never import Fastify.
// http/app.ts mounts every concept's routes from one visible list.
import type { Queryable } from '../db/database.js';
import type { JsonSchema } from './schema.js';

export interface Principal {
  accountId: string;
  apiKeyId: string | null;
  permission: 'full_access' | 'sending_access';
  /** sending_access keys may be restricted to one domain */
  domainId: string | null;
  /** Signed in to the dashboard (a session cookie, users/): the user; API keys have none. */
  userId?: string;
}

export interface RouteContext {
  principal: Principal;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
  /** The request's method: a GET route also answers HEAD (with the same handler, no body sent). */
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** The client's address (behind a trusted proxy, the one it forwarded: POSTLINE_TRUST_PROXY). */
  ip: string;
  /**
   * Present on idempotent routes when the request carries an Idempotency-Key: call it inside
   * the transaction that commits the work, so the stored response commits with it.
   */
  saveIdempotentResponse?: (q: Queryable, status: number, body: unknown) => Promise<void>;
  /** 'multipart' routes: the body's parts, streamed in the order the client sent them. */
  form?: AsyncIterable<FormPart>;
}

/**
 * One part of a multipart/form-data body. A file's `content` arrives as it is received: read
 * it to the end before asking for the next part (it throws ApiError 413 past the route's
 * `maxFileBytes`, and 400 when the body is malformed or cut short).
 */
export type FormPart =
  | { kind: 'field'; name: string; value: string }
  | { kind: 'file'; name: string; filename: string; mimeType: string; content: AsyncIterable<Buffer> };

export interface RouteResult {
  status?: number;
  /** JSON, or a Buffer/string sent as is (downloads, the tracking pixel). */
  body: unknown;
  /** Response headers (content-type of a download, location of a redirect). */
  headers?: Record<string, string>;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  url: string;
  /**
   * 'sending' routes accept sending_access keys; every other route needs full_access, except
   * 'public' ones, which take no API key at all: links in mail (tracking, signed downloads)
   * whose URL carries its own signature. Their handlers get no principal.
   */
  access?: 'full' | 'sending' | 'public';
  /** POST /emails and /emails/batch: honour the Idempotency-Key header. */
  idempotent?: boolean;
  /**
   * Accept a JSON body of any shape (arrays for batch); default expects an object or nothing;
   * 'json': an object or an array (a contract that documents one and an SDK that sends the other).
   * 'multipart': a multipart/form-data body (uploads), read part by part from `ctx.form`.
   * 'form': an HTML form post (public pages, RFC 8058 one-click unsubscribe): urlencoded
   * fields in `body` (a repeated name as an array), or multipart parts in `ctx.form`.
   */
  bodyShape?: 'object' | 'array' | 'json' | 'multipart' | 'form';
  /** Query parameters that are lists (Resend's `style: form`): given comma-separated, repeated or both; any other may be given once. */
  listQuery?: readonly string[];
  /** 'multipart' routes: the largest file part accepted, bytes (default: the JSON body limit). */
  maxFileBytes?: number;
  /** What GET /openapi.json says of this route (src/openapi/); test/http/openapi.test.ts fails for a route without one. */
  doc?: RouteDoc;
  handler(ctx: RouteContext): Promise<RouteResult>;
}

/**
 * A route's description, written beside its handler and kept to what the handler checks:
 * the fields it reads, which are required, their types, values and limits. Path parameters
 * come from the url (`:id`); the access, Idempotency-Key and body's media type from the route.
 */
export interface RouteDoc {
  summary: string;
  description?: string;
  /** Default: the url's first segment. */
  tags?: string[];
  /**
   * Path parameters' schemas by name; a parameter not given is any string. Like `query`, the
   * check of every request before the handler runs (api/request-schema.ts): a parameter that
   * takes only an id is `uuid()` (a malformed one is Resend's 422), one that also takes a name
   * or an address a string that says so.
   */
  params?: Record<string, JsonSchema>;
  /** Query parameters by name, each optional unless named in `requiredQuery`. */
  query?: Record<string, JsonSchema>;
  requiredQuery?: string[];
  /** Request headers the handler reads (Idempotency-Key is added for `idempotent` routes). */
  headers?: Record<string, JsonSchema>;
  /** The body: JSON, or for 'multipart' and 'form' routes the form's fields. */
  body?: JsonSchema;
  /**
   * `body` is the check of every request (api/request-schema.ts), made before the handler runs:
   * the handler gets a body that passed it, nulls of optional fields dropped. A route whose
   * handler applies the schema itself says why here (a batch checks its items one by one). A
   * form's fields ('multipart', 'form') are read by the handler.
   */
  bodyCheckedByHandler?: string;
  response: ResponseDoc;
  /** Postline's own, not a route of Resend's API (OpenAPI `x-postline-addition`). */
  addition?: true;
}

export interface ResponseDoc {
  status: number;
  description?: string;
  /** Default: application/json. */
  contentType?: string;
  /** None for a body-less answer (a redirect). */
  schema?: JsonSchema;
  headers?: Record<string, JsonSchema>;
}
