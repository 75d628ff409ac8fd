// A route as a concept declares it: framework-free, so concepts never import Fastify.
// http/app.ts mounts every concept's routes from one visible list.
import type { Queryable } from '../db/database.js';

export interface Principal {
  accountId: string;
  apiKeyId: string | null;
  permission: 'full_access' | 'sending_access';
  /** sending_access keys may be restricted to one domain */
  domainId: string | null;
}

export interface RouteContext {
  principal: Principal;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
  ip: string;
  /**
   * Present on idempotent routes when the request carries an Idempotency-Key: call it inside
   * the transaction that commits the work, so the stored response commits with it.
   */
  saveIdempotentResponse?: (q: Queryable, status: number, body: unknown) => Promise<void>;
}

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
  /** Accept a JSON body of any shape (arrays for batch); default expects an object or nothing. */
  bodyShape?: 'object' | 'array';
  handler(ctx: RouteContext): Promise<RouteResult>;
}
