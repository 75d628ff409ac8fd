// JSON request bodies as the SDK sends them. It sends `Content-Type: application/json` on every
// request, bodiless ones included: an empty body is "no body", never an error
// (resend-compat-notes §1.1). Other media types are refused with 415 (error-replies.ts), except
// in the forms context (routes.ts). A body nested deeper than MAX_JSON_DEPTH is refused here,
// once for every route: code that walks a body recursively (api/storable.ts, handlers, the
// request log's jsonb) would otherwise run out of stack on `[[[[…]]]]` and answer 500.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { validation } from '../api/errors.js';
import { mayHoldUnstorableEscapes } from '../api/storable.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Characters of the body as received, for the request log. */
    bodySize?: number;
    /** The body may hold strings PostgreSQL cannot store (api/storable.ts): routes.ts checks it. */
    bodyMayHoldEscapes?: boolean;
  }
}

async function jsonBody(app: FastifyInstance): Promise<void> {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, raw, done) => {
    const text = (raw as string).trim();
    req.bodySize = text.length;
    if (text === '') return done(null, undefined);
    req.bodyMayHoldEscapes = mayHoldUnstorableEscapes(text);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return done(validation('The request body is not valid JSON.', 400), undefined);
    }
    if (nestsDeeperThan(body, MAX_JSON_DEPTH)) return done(validation(`The request body nests deeper than ${MAX_JSON_DEPTH} levels.`), undefined);
    done(null, body);
  });
}

/** Deeper than any body a route reads (an automation's filter groups are a few levels). */
const MAX_JSON_DEPTH = 64;

/** Whether arrays and objects nest deeper than `limit` in `value`: walked without recursion. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [inner, depth] = pending.pop()!;
    if (typeof inner !== 'object' || inner === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(inner)) pending.push([child, depth + 1]);
  }
  return false;
}

export default fp(jsonBody, { name: 'postline-json-body' });
