// JSON request bodies as the SDK sends them. It sends `Content-Type: application/json` on every
// request, bodiless ones included: an empty body is "no body", never an error
// (resend-compat-notes §1.1). Other media types are refused with 415 (error-replies.ts), except
// in the forms context (routes.ts).
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
    try {
      done(null, JSON.parse(text));
    } catch {
      done(validation('The request body is not valid JSON.', 400), undefined);
    }
  });
}

export default fp(jsonBody, { name: 'postline-json-body' });
