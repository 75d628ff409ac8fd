// The API request log (GET /logs): every request made with a valid key, with its status and
// bodies, recorded after the response is sent (logs/request-logs.ts batches the writes). The
// dashboard's own requests (a session, no key) are not API requests and are not logged: its
// pages refresh themselves every few seconds and would bury the API's requests.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { storableOrNull } from '../api/storable.js';
import type { Principal } from '../api/route.js';
import type { RequestLogs } from '../logs/request-logs.js';

declare module 'fastify' {
  interface FastifyReply {
    /** The serialised body sent, kept for the log. */
    sentPayload: unknown;
  }
}

async function requestLog(app: FastifyInstance, { requestLogs }: { requestLogs: RequestLogs }): Promise<void> {
  app.decorateReply('sentPayload', null);
  app.addHook('onSend', async (req, reply, payload) => {
    if (loggable(req.principal)) reply.sentPayload = payload;
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => {
    if (!loggable(req.principal)) return;
    requestLogs.record({
      accountId: req.principal.accountId,
      apiKeyId: req.principal.apiKeyId,
      method: req.method,
      endpoint: req.url.split('?')[0]!,
      status: reply.statusCode,
      userAgent: req.headers['user-agent'],
      requestBody: req.bodyMayHoldEscapes ? storableOrNull(req.body) : req.body,
      requestBodySize: req.bodySize,
      responseBody: jsonOrNull(reply.sentPayload),
    });
  });
}

const loggable = (principal: Principal | undefined): principal is Principal => principal !== undefined && principal.userId === undefined;

function jsonOrNull(payload: unknown): unknown {
  if (typeof payload !== 'string') return null;
  try {
    return JSON.parse(payload);
  } catch {
    return null;
  }
}

export default fp(requestLog, { name: 'postline-request-log' });
