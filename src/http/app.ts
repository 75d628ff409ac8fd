// The HTTP API: a Fastify app that speaks Resend's wire contract, built from plugins in the
// order a request meets them. The cross-cutting ones apply to every route (fastify-plugin):
// JSON bodies → error replies → access (API key or dashboard session, rate limit) → request
// log. Then the dashboard's files (dashboard.ts) and its mail preview (mail-preview.ts), and the concepts' routes last, in an
// encapsulated context of their own (routes.ts). Concepts declare routes framework-free
// (api/route.ts); only this folder imports Fastify.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { RequestLogs } from '../logs/request-logs.js';
import access, { type AccessOptions } from './access.js';
import { dashboard } from './dashboard.js';
import errorReplies, { clientErrorHandler, frameworkErrors, literalPercents, MAX_PARAM_LENGTH } from './error-replies.js';
import jsonBody from './json-body.js';
import { mailPreview } from './mail-preview.js';
import requestLog from './request-log.js';
import trackingHosts from './tracking-hosts.js';
import { routes, type RoutesOptions } from './routes.js';

interface AppDeps extends AccessOptions, RoutesOptions {
  db: Db;
  logger: Logger;
  bodyLimitBytes: number;
  /** Fastify's trustProxy: which proxies' X-Forwarded-For sets the client address (POSTLINE_TRUST_PROXY). */
  trustProxy?: boolean | number | string;
  requestLogs: RequestLogs;
  /** Customers' verified tracking hosts: requests to them are tracking requests only. */
  trackingHosts?: { has(host: string): boolean };
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { trustProxy } = deps;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.bodyLimitBytes,
    // A number of hops: the addresses that many hops from the server are proxies.
    trustProxy: typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy : (trustProxy ?? false),
    // Contacts are addressed by email in the path (`/contacts/a+b@x.com`), unencoded.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    rewriteUrl: literalPercents,
    frameworkErrors,
    clientErrorHandler,
  });
  await app.register(trackingHosts, { hosts: deps.trackingHosts });
  await app.register(jsonBody);
  await app.register(errorReplies, { bodyLimitBytes: deps.bodyLimitBytes });
  await app.register(access, {
    apiKeys: deps.apiKeys,
    rateLimiter: deps.rateLimiter,
    publicRateLimiter: deps.publicRateLimiter,
    sessions: deps.sessions,
  });
  await app.register(requestLog, { requestLogs: deps.requestLogs });
  await app.register(dashboard);
  await app.register(mailPreview, { sessions: deps.sessions });
  await app.register(routes, { db: deps.db, bodyLimitBytes: deps.bodyLimitBytes, routes: deps.routes, nodeId: deps.nodeId });
  return app;
}
