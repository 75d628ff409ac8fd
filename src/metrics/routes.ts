// GET /metrics on the API's port, in Prometheus' text format, outside API-key auth: with
// POSTLINE_METRICS_TOKEN set the scraper gives it as a bearer token; without it only a client
// on loopback may read (a sidecar, an agent on the host, an SSH tunnel).
//
// "On loopback" is the connection's own address, and a request carrying X-Forwarded-For or
// Forwarded is never taken for one: a reverse proxy on the same host connects from loopback
// on behalf of anyone. Without those headers the request's address is the socket's whatever
// POSTLINE_TRUST_PROXY says (Fastify reads only X-Forwarded-For), so a client cannot forge it.
import crypto from 'node:crypto';
import { ApiError } from '../api/errors.js';
import type { Route, RouteContext } from '../api/route.js';
import { string } from '../api/schema.js';
import { inRanges } from '../egress/address-ranges.js';

const LOOPBACK = ['127.0.0.0/8', '::1/128'];

const digest = (s: string) => crypto.createHash('sha256').update(s).digest();

/** Why this request may not read /metrics (the error to answer), or undefined when it may. */
export function metricsRefusal(token: string | undefined, request: Pick<RouteContext, 'headers' | 'ip'>): ApiError | undefined {
  if (token !== undefined) {
    const match = /^Bearer\s+(.+)$/i.exec(String(request.headers.authorization ?? '').trim());
    // Compared as digests of equal length, in constant time: the token is a secret.
    if (match && crypto.timingSafeEqual(digest(match[1]!.trim()), digest(token))) return undefined;
    return new ApiError('invalid_metrics_token', 'Missing or invalid bearer token for /metrics.');
  }
  const forwarded = request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined;
  if (!forwarded && inRanges(request.ip, LOOPBACK)) return undefined;
  return new ApiError('metrics_loopback_only', '/metrics answers loopback clients only; set POSTLINE_METRICS_TOKEN to read it from elsewhere.');
}

export function metricsRoutes(token: string | undefined, scrape: () => Promise<{ contentType: string; text: string }>): Route[] {
  return [
    {
      method: 'GET',
      url: '/metrics',
      access: 'public',
      doc: {
        summary: "Prometheus metrics of this node, the worker thread's merged in",
        description:
          'The text exposition format; every metric is described in docs/reference/metrics.md. With POSTLINE_METRICS_TOKEN set, give it as `Authorization: Bearer <token>` (else 401 `invalid_metrics_token`); unset, only loopback clients may read it (else 403 `metrics_loopback_only`). Absent (404) with POSTLINE_METRICS=false.',
        addition: true,
        response: { status: 200, contentType: 'text/plain; version=0.0.4; charset=utf-8', schema: string() },
      },
      async handler(ctx) {
        const refusal = metricsRefusal(token, ctx);
        if (refusal) {
          const headers: Record<string, string> = refusal.statusCode === 401 ? { 'www-authenticate': 'Bearer realm="postline metrics"' } : {};
          return { status: refusal.statusCode, body: refusal.toBody(), headers };
        }
        const { contentType, text } = await scrape();
        return { body: text, headers: { 'content-type': contentType, 'cache-control': 'no-store' } };
      },
    },
  ];
}
