// Who may call, and how often: the API key (Bearer) of every route that is not public, or the
// dashboard's session cookie (acting as its user's account with full access, as a full-access
// key would; a change must carry the session's X-CSRF-Token), the sending-only keys' limits,
// and the rate limits, whose headers every response carries, errors
// included (IETF draft-ietf-httpapi-ratelimit-headers). Requests without a valid key, public
// links in mail and unknown paths are counted per client address.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ApiKeys } from '../accounts/api-keys.js';
import { ApiError } from '../api/errors.js';
import type { Principal, Route } from '../api/route.js';
import type { RateDecision, RateLimiter } from '../rate-limit/rate-limiter.js';
import { type Sessions, sessionCookie } from '../users/sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** The concept's route this Fastify route serves (routes.ts). */
    route?: Route;
    /** A file of the dashboard's web app (dashboard.ts): limited like public links. */
    dashboardFile?: boolean;
  }
}

export interface AccessOptions {
  apiKeys: ApiKeys;
  rateLimiter: RateLimiter;
  /** Public links in mail (tracking, signed downloads), per client address; default: rateLimiter. */
  publicRateLimiter?: RateLimiter;
  /** The dashboard's sessions (users/); without them, a cookie authenticates nothing. */
  sessions?: Sessions;
}

// RFC 9110 §9.2.1: the methods that change nothing need no anti-forgery token.
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

async function access(app: FastifyInstance, { apiKeys, rateLimiter, publicRateLimiter = rateLimiter, sessions }: AccessOptions): Promise<void> {
  app.addHook('onRequest', async (req, reply) => {
    const route = req.routeOptions.config?.route;
    if (req.routeOptions.config?.dashboardFile) {
      limit(reply, await publicRateLimiter.hit(`ip:${req.ip}`));
      return;
    }
    if (!route) {
      setRateHeaders(reply, await rateLimiter.hit(`ip:${req.ip}`));
      return;
    }
    // Links in mail (tracking, signed downloads): no API key; the handler checks the URL's
    // signature. They have a limit of their own: many readers may share one address (a proxy
    // fetching images).
    if (route.access === 'public') {
      limit(reply, await publicRateLimiter.hit(`ip:${req.ip}`));
      return;
    }
    const token = bearerToken(req);
    const cookie = token === undefined && sessions ? sessionCookie(req.headers.cookie) : undefined;
    if (cookie !== undefined) {
      await authenticateSession(req, reply, sessions!, cookie, rateLimiter);
      return;
    }
    const principal = token ? await apiKeys.authenticate(token) : null;
    if (!principal) {
      // Limited per client address, so keys cannot be guessed at full speed.
      limit(reply, await rateLimiter.hit(`ip:${req.ip}`));
      if (token === undefined) throw new ApiError('missing_api_key', 'Missing API key in the authorization header.');
      throw new ApiError('invalid_api_key', 'API key is invalid.');
    }
    req.principal = principal;
    limit(reply, await rateLimiter.hit(`account:${principal.accountId}`));
    if (principal.permission === 'sending_access' && route.access !== 'sending') {
      throw new ApiError('restricted_api_key', 'This API key is restricted to only send emails.');
    }
  });
}

/** A dashboard request: the session's user's account, with full access. */
async function authenticateSession(req: FastifyRequest, reply: FastifyReply, sessions: Sessions, cookie: string, rateLimiter: RateLimiter): Promise<void> {
  const user = await sessions.authenticate(cookie);
  if (!user) {
    limit(reply, await rateLimiter.hit(`ip:${req.ip}`));
    reply.header('set-cookie', sessions.clearedCookie());
    throw new ApiError('invalid_session', 'Your session has ended: sign in again.');
  }
  // Checked before the body is read: a forged request changes nothing.
  if (!SAFE_METHODS.has(req.method) && !sessions.csrfMatches(cookie, req.headers['x-csrf-token'])) {
    throw new ApiError('invalid_csrf_token', 'This request needs the X-CSRF-Token header of your session.');
  }
  req.principal = { accountId: user.accountId, apiKeyId: null, permission: 'full_access', domainId: null, userId: user.userId };
  limit(reply, await rateLimiter.hit(`account:${user.accountId}`));
}

function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match ? match[1]!.trim() : '';
}

/** Sets the headers; over the limit, 429 with Retry-After. */
function limit(reply: FastifyReply, decision: RateDecision): void {
  setRateHeaders(reply, decision);
  if (decision.allowed) return;
  reply.header('retry-after', String(decision.resetSeconds));
  throw new ApiError('rate_limit_exceeded', 'Too many requests. Please limit the number of requests per second.');
}

function setRateHeaders(reply: FastifyReply, d: RateDecision): void {
  reply.header('ratelimit-limit', String(d.limit));
  reply.header('ratelimit-remaining', String(d.remaining));
  reply.header('ratelimit-reset', String(d.resetSeconds));
  reply.header('ratelimit-policy', `${d.limit};w=1`);
}

export default fp(access, { name: 'postline-access' });
