// The HTTP API: a Fastify app that speaks Resend's wire contract. Cross-cutting behaviour is
// set up here, in order (body parsing, errors, auth, rate limit, idempotency, request log);
// then every concept's routes are mounted from one visible list. Concepts declare routes
// framework-free (api/route.ts); only this folder imports Fastify.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ApiError, validation } from '../api/errors.js';
import type { Principal, Route, RouteContext } from '../api/route.js';
import type { Db } from '../db/database.js';
import type { ApiKeys } from '../accounts/api-keys.js';
import type { RequestLogs } from '../logs/request-logs.js';
import { claimIdempotencyKey } from '../idempotency/idempotency-keys.js';
import { formParts, registerMultipart } from './multipart.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';

interface AppDeps {
  db: Db;
  logger: Logger;
  bodyLimitBytes: number;
  apiKeys: ApiKeys;
  rateLimiter: RateLimiter;
  /** Public links in mail (tracking, signed downloads), per client address; default: rateLimiter. */
  publicRateLimiter?: RateLimiter;
  /** Fastify's trustProxy: which proxies' X-Forwarded-For sets the client address (POSTLINE_TRUST_PROXY). */
  trustProxy?: boolean | number | string;
  requestLogs: RequestLogs;
  /** Every concept's routes, in the order written in server.ts. */
  routes: Route[];
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    bodySize?: number;
  }
}

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const;
/** An escaped NUL (`\u0000`) in JSON text, not itself preceded by an escaping backslash. */
const ESCAPED_NUL = /(?<!\\)(?:\\\\)*\\u0000/i;

function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  return reply.code(err.statusCode).type('application/json; charset=utf-8').send(err.toBody());
}

function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1]!.trim() : '';
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { db, apiKeys, rateLimiter, requestLogs } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes,
    // A number of hops: the addresses that many hops from the server are proxies.
    trustProxy: typeof deps.trustProxy === 'number' ? ((_address: string, hop: number) => hop < (deps.trustProxy as number)) : (deps.trustProxy ?? false),
    // Contacts are addressed by email in the path (`/contacts/a+b@x.com`), unencoded.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
  });

  // The SDK sends `Content-Type: application/json` on every request, bodiless ones included:
  // an empty body is "no body", never an error (resend-compat-notes §1.1).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, raw, done) => {
    const text = (raw as string).trim();
    req.bodySize = text.length;
    if (text === '') return done(null, undefined);
    // PostgreSQL text cannot hold NUL: refuse it here rather than fail deep inside a write.
    if (ESCAPED_NUL.test(text)) return done(validation('Strings must not contain NUL (\\u0000) characters.'), undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(validation('The request body is not valid JSON.', 400), undefined);
    }
  });

  app.setErrorHandler((err: any, req, reply) => {
    if (err instanceof ApiError) return sendError(reply, err);
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, validation(`The request body is larger than ${deps.bodyLimitBytes} bytes.`, 413));
    }
    if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(reply, validation('Requests must have `Content-Type: application/json`.', 415));
    }
    if (typeof err.statusCode === 'number' && err.statusCode < 500) {
      return sendError(reply, validation(err.message, err.statusCode));
    }
    req.log.error({ err, url: req.url }, 'request failed');
    return sendError(reply, new ApiError('application_error', 'An unexpected error occurred.'));
  });

  app.setNotFoundHandler((_req, reply) => sendError(reply, new ApiError('not_found', 'The requested endpoint does not exist.')));

  // Every response carries the rate-limit headers, errors included. Requests without a valid
  // key are counted per client address.
  app.addHook('onRequest', async (req, reply) => {
    const route = req.routeOptions.config as { route?: Route } | undefined;
    if (!route?.route) {
      const decision = await rateLimiter.hit(`ip:${req.ip}`);
      setRateHeaders(reply, decision);
      return;
    }
    // Links in mail (tracking, signed downloads): no API key; the handler checks the URL's
    // signature. Like every request without a key they are limited per client address, with a
    // limit of their own: many readers may share one address (a proxy fetching images).
    if (route.route.access === 'public') {
      const decision = await (deps.publicRateLimiter ?? rateLimiter).hit(`ip:${req.ip}`);
      setRateHeaders(reply, decision);
      if (!decision.allowed) throw rateLimited(reply, decision);
      return;
    }
    const token = bearerToken(req);
    const principal = token ? await apiKeys.authenticate(token) : null;
    if (!principal) {
      // Requests without a valid key are limited per client address, so keys cannot be guessed
      // at full speed.
      const decision = await rateLimiter.hit(`ip:${req.ip}`);
      setRateHeaders(reply, decision);
      if (!decision.allowed) throw rateLimited(reply, decision);
      if (token === undefined) throw new ApiError('missing_api_key', 'Missing API key in the authorization header.');
      throw new ApiError('invalid_api_key', 'API key is invalid.');
    }
    req.principal = principal;
    const decision = await rateLimiter.hit(`account:${principal.accountId}`);
    setRateHeaders(reply, decision);
    if (!decision.allowed) throw rateLimited(reply, decision);
    if (principal.permission === 'sending_access' && route.route.access !== 'sending') {
      throw new ApiError('restricted_api_key', 'This API key is restricted to only send emails.');
    }
  });

  app.addHook('onSend', async (req, reply, payload) => {
    if (req.principal) (reply as any).postlinePayload = payload;
    return payload;
  });

  app.addHook('onResponse', async (req, reply) => {
    if (!req.principal) return;
    const payload = (reply as any).postlinePayload;
    let responseBody: unknown = null;
    if (typeof payload === 'string') {
      try {
        responseBody = JSON.parse(payload);
      } catch {
        responseBody = null;
      }
    }
    requestLogs.record({
      accountId: req.principal.accountId,
      apiKeyId: req.principal.apiKeyId,
      method: req.method,
      endpoint: req.url.split('?')[0]!,
      status: reply.statusCode,
      userAgent: req.headers['user-agent'],
      requestBody: req.body,
      requestBodySize: req.bodySize,
      responseBody,
    });
  });

  // Uploads (multipart/form-data) and HTML form posts (urlencoded, or multipart as RFC 8058
  // one-click unsubscribe clients send) are parsed only in a context of their own: every other
  // route keeps refusing them (415) and pays nothing for them.
  const inForms = (r: Route) => r.bodyShape === 'multipart' || r.bodyShape === 'form';
  let uploads: FastifyInstance | undefined;
  if (deps.routes.some(inForms)) {
    app.register(async (instance) => {
      await registerMultipart(instance);
      instance.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (req, raw, done) => {
        req.bodySize = (raw as string).length;
        done(null, urlEncodedFields(raw as string));
      });
      uploads = instance;
    });
    await app.after();
  }

  const byUrl = new Map<string, Set<string>>();
  for (const route of deps.routes) {
    const methods = byUrl.get(route.url) ?? new Set();
    methods.add(route.method);
    byUrl.set(route.url, methods);
    (inForms(route) ? uploads! : app).route({
      method: route.method,
      url: route.url,
      config: { route },
      handler: async (req, reply) => {
        const body = req.body;
        if (route.bodyShape === 'multipart') {
          if (!req.isMultipart()) throw validation('Requests to this endpoint must have `Content-Type: multipart/form-data`.', 415);
        } else if (route.bodyShape === 'form') {
          if (!req.isMultipart() && body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
            throw validation('The request body must be a form.', 415);
          }
        } else if (route.bodyShape === 'json') {
          if (typeof body !== 'object' || body === null) throw validation('The request body must be a JSON object or array.');
        } else if (route.bodyShape === 'array' ? !Array.isArray(body) : body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
          throw validation(route.bodyShape === 'array' ? 'The request body must be a JSON array.' : 'The request body must be a JSON object.');
        }
        const ctx: RouteContext = {
          principal: req.principal!,
          params: req.params as Record<string, string>,
          query: req.query as Record<string, string | undefined>,
          body,
          method: req.method,
          headers: req.headers,
          ip: req.ip,
          form:
            route.bodyShape === 'multipart' || (route.bodyShape === 'form' && req.isMultipart())
              ? formParts(req, route.maxFileBytes ?? deps.bodyLimitBytes)
              : undefined,
        };
        const key = req.headers['idempotency-key'];
        if (!route.idempotent || key === undefined) {
          const result = await route.handler(ctx);
          if (result.headers) reply.headers(result.headers);
          return reply.code(result.status ?? 200).send(result.body);
        }
        const claim = await claimIdempotencyKey(db, ctx.principal.accountId, `${route.method} ${route.url}`, String(key), body);
        if (claim.kind === 'replay') return reply.code(claim.status).send(claim.body);
        let saved = false;
        ctx.saveIdempotentResponse = async (q, status, responseBody) => {
          await claim.save(q, status, responseBody);
          saved = true;
        };
        try {
          const result = await route.handler(ctx);
          if (!saved) await claim.save(db, result.status ?? 200, result.body);
          return reply.code(result.status ?? 200).send(result.body);
        } catch (err) {
          await claim.release().catch(() => {});
          throw err;
        }
      },
    });
  }
  // A known path with another method is 405, not 404.
  for (const [url, methods] of byUrl) {
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

  return app;
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

function rateLimited(reply: FastifyReply, decision: { resetSeconds: number }): ApiError {
  reply.header('retry-after', String(decision.resetSeconds));
  return new ApiError('rate_limit_exceeded', 'Too many requests. Please limit the number of requests per second.');
}

function setRateHeaders(reply: FastifyReply, d: { limit: number; remaining: number; resetSeconds: number }): void {
  reply.header('ratelimit-limit', String(d.limit));
  reply.header('ratelimit-remaining', String(d.remaining));
  reply.header('ratelimit-reset', String(d.resetSeconds));
  reply.header('ratelimit-policy', `${d.limit};w=1`);
}
