// Mounts every concept's routes (api/route.ts) in an encapsulated context: checks the body's
// shape the route declares, and the path parameters, query parameters and body against their
// documented schemas (api/request-schema.ts), builds its RouteContext, runs the handler, and
// keeps Idempotency-Key promises. Routes that take uploads or HTML forms live in a nested
// context of their own, the only one that parses multipart and urlencoded bodies: every other
// route keeps refusing them (415) and pays nothing for them. A known path with another method
// is 405, not 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, validation } from '../api/errors.js';
import { singleValuedQuery } from '../api/query.js';
import { type ParamsCheck, paramsCheck, type QueryCheck, queryCheck, type RequestCheck, requestCheck } from '../api/request-schema.js';
import type { Route, RouteContext } from '../api/route.js';
import { assertStorable } from '../api/storable.js';
import type { Db } from '../db/database.js';
import { claimIdempotencyKey } from '../idempotency/idempotency-keys.js';
import { formParts, registerMultipart } from './multipart.js';

export interface RoutesOptions {
  db: Db;
  bodyLimitBytes: number;
  /** Every concept's routes, in the order written in server.ts. */
  routes: Route[];
  /** The node whose presence vouches for this process's idempotency claims, if it keeps one. */
  nodeId?: string;
}

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const;

const takesForm = (route: Route) => route.bodyShape === 'multipart' || route.bodyShape === 'form';

export async function routes(app: FastifyInstance, options: RoutesOptions): Promise<void> {
  const mount = (context: FastifyInstance, route: Route) => {
    // Path and query parameters and a JSON body are checked by their documented schemas (a form's
    // fields are read by its handler). Compiled at the route's first request: a node (or a
    // test's server) pays only for the routes it serves.
    const { body, query, params } = route.doc ?? {};
    const checks: Checks = {
      params: params && lazily(() => paramsCheck(params)),
      query: query && lazily(() => queryCheck(query)),
      body: body && !takesForm(route) && route.doc?.bodyCheckedByHandler === undefined ? lazily(() => requestCheck(body)) : undefined,
    };
    context.route({
      method: route.method,
      url: route.url,
      config: { route },
      handler: (req, reply) => serve(options, route, checks, req, reply),
    });
  };

  for (const route of options.routes.filter((r) => !takesForm(r))) mount(app, route);
  const forms = options.routes.filter(takesForm);
  if (forms.length > 0) {
    await app.register(async (context) => {
      await registerMultipart(context);
      context.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (req, raw, done) => {
        req.bodySize = (raw as string).length;
        done(null, urlEncodedFields(raw as string));
      });
      for (const route of forms) mount(context, route);
    });
  }

  const methodsOf = new Map<string, Set<string>>();
  for (const route of options.routes) methodsOf.set(route.url, (methodsOf.get(route.url) ?? new Set()).add(route.method));
  for (const [url, methods] of methodsOf) {
    const others = METHODS.filter((m) => !methods.has(m));
    if (others.length === 0) continue;
    app.route({
      method: others,
      url,
      handler: async () => {
        throw new ApiError('method_not_allowed', 'Method is not allowed for the requested path.');
      },
    });
  }
}

interface Checks {
  params?: ParamsCheck;
  query?: QueryCheck;
  body?: RequestCheck;
}

/** `make()`'s check, made at its first use. */
function lazily<A, R>(make: () => (input: A) => R): (input: A) => R {
  let made: ((input: A) => R) | undefined;
  return (input) => (made ??= make())(input);
}

async function serve(options: RoutesOptions, route: Route, checks: Checks, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  checkBodyShape(route, req);
  const query = singleValuedQuery(req.query, route.listQuery);
  // Form fields are decoded from %-escapes, so they may hold anything; JSON only through \u escapes.
  assertStorable({ params: req.params, query, body: req.body, bodyMayHoldEscapes: req.bodyMayHoldEscapes === true || route.bodyShape === 'form' });
  const params = req.params as Record<string, string>;
  checks.params?.(params);
  checks.query?.(query);
  const body = checks.body ? checks.body(req.body ?? {}) : req.body;
  const ctx: RouteContext = {
    principal: req.principal!,
    params,
    query,
    body,
    method: req.method,
    headers: req.headers,
    ip: req.ip,
    form:
      route.bodyShape === 'multipart' || (route.bodyShape === 'form' && req.isMultipart())
        ? formParts(req, route.maxFileBytes ?? options.bodyLimitBytes)
        : undefined,
  };
  const key = req.headers['idempotency-key'];
  if (!route.idempotent || key === undefined) {
    const result = await route.handler(ctx);
    if (result.headers) reply.headers(result.headers);
    return reply.code(result.status ?? 200).send(result.body);
  }
  // The response is saved in the transaction that commits the work when the handler does so
  // (saveIdempotentResponse), else right after it; a failed request gives the key back.
  const claim = await claimIdempotencyKey(options.db, ctx.principal.accountId, `${route.method} ${route.url}`, String(key), body, options.nodeId);
  if (claim.kind === 'replay') return reply.code(claim.status).send(claim.body);
  let saved = false;
  ctx.saveIdempotentResponse = async (q, status, responseBody) => {
    await claim.save(q, status, responseBody);
    saved = true;
  };
  try {
    const result = await route.handler(ctx);
    if (!saved) await claim.save(options.db, result.status ?? 200, result.body);
    return reply.code(result.status ?? 200).send(result.body);
  } catch (err) {
    await claim.release().catch(() => {});
    throw err;
  }
}

/** The body must have the shape the route declares (415 for a form where one is expected). */
function checkBodyShape(route: Route, req: FastifyRequest): void {
  const body = req.body;
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  switch (route.bodyShape) {
    case 'multipart':
      if (!req.isMultipart()) throw validation('Requests to this endpoint must have `Content-Type: multipart/form-data`.', 415);
      return;
    case 'form':
      if (!req.isMultipart() && body !== undefined && !isObject) throw validation('The request body must be a form.', 415);
      return;
    case 'json':
      if (typeof body !== 'object' || body === null) throw validation('The request body must be a JSON object or array.');
      return;
    case 'array':
      if (!Array.isArray(body)) throw validation('The request body must be a JSON array.');
      return;
    default:
      if (body !== undefined && !isObject) throw validation('The request body must be a JSON object.');
  }
}

/** An HTML form's urlencoded fields; a name given more than once (checkboxes) becomes an array. */
function urlEncodedFields(raw: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    const earlier = fields[name];
    fields[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
  }
  return fields;
}
