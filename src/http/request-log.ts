// The request log (GET /logs): every request made with a valid key, with its status and
// bodies, recorded after the response is sent (logs/request-logs.ts batches the writes). Of a
// dashboard session's requests only the changes are logged, with the user who made them (who
// did what, when): its reads are the pages refreshing themselves every few seconds, and would
// bury the API's requests.
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
    if (loggable(req.principal, req.method)) reply.sentPayload = payload;
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => {
    if (!loggable(req.principal, req.method)) return;
    requestLogs.record({
      accountId: req.principal.accountId,
      apiKeyId: req.principal.apiKeyId,
      userId: req.principal.userId ?? null,
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

const READS = new Set(['GET', 'HEAD']);
const loggable = (principal: Principal | undefined, method: string): principal is Principal =>
  principal !== undefined && (principal.userId === undefined || !READS.has(method));

function jsonOrNull(payload: unknown): unknown {
  if (typeof payload !== 'string') return null;
  try {
    return JSON.parse(payload);
  } catch {
    return null;
  }
}

export default fp(requestLog, { name: 'postline-request-log' });
