// Every error as Resend's body `{statusCode, message, name}`: concepts' ApiErrors as they are,
// Fastify's own (body too large, wrong media type, other 4xx) mapped onto the catalogue, and
// anything unexpected logged and answered 500 without its details. Errors met before routing
// (a URL that does not decode, a path parameter too long) and before Fastify sees a request at
// all (the HTTP parser's: headers over 16 KB, malformed requests) get the same body, through
// the options app.ts passes to Fastify.
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, validation } from '../api/errors.js';

function sendError(reply: FastifyReply, err: ApiError): FastifyReply {
  return reply.code(err.statusCode).type('application/json; charset=utf-8').send(err.toBody());
}

async function errorReplies(app: FastifyInstance, options: { bodyLimitBytes: number }): Promise<void> {
  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    if (err instanceof ApiError) return sendError(reply, err);
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, validation(`The request body is larger than ${options.bodyLimitBytes} bytes.`, 413));
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
}

/** Fastify's `frameworkErrors`: URL errors found while routing. */
export function frameworkErrors(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_BAD_URL') {
    sendError(reply, new ApiError('invalid_parameter', 'The URL holds a percent-encoding that is not UTF-8.', 400));
  } else if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    sendError(reply, new ApiError('invalid_parameter', `A path parameter is longer than ${MAX_PARAM_LENGTH} characters.`, 414));
  } else {
    sendError(reply, validation(err.message, typeof err.statusCode === 'number' && err.statusCode < 500 ? err.statusCode : 400));
  }
}

/** Longest path parameter the router matches (contacts are addressed by email in the path). */
export const MAX_PARAM_LENGTH = 1000;

/**
 * Fastify's `rewriteUrl`: a `%` that does not start a UTF-8 percent-encoding is taken
 * literally. The SDK puts contact addresses into paths without encoding them, and `%` is valid
 * in an address (`per%cent@example.org`: `%ce` alone is no UTF-8). Only a URL that would not
 * decode is rewritten; one that decodes means what it says.
 */
export function literalPercents(req: { url?: string }): string {
  const url = req.url ?? '/';
  if (!url.includes('%')) return url;
  try {
    decodeURIComponent(url);
    return url;
  } catch {
    // Stray `%`s alone, if that is enough; else every `%` is text.
    const strays = url.replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
    try {
      decodeURIComponent(strays);
      return strays;
    } catch {
      return url.replaceAll('%', '%25');
    }
  }
}

const CLIENT_ERRORS: Record<string, { status: number; reason: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', message: 'The URL and headers together exceed 16 KB.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', message: 'The request did not arrive in time.' },
};

/** Fastify's `clientErrorHandler`: what Node's HTTP parser refuses, answered on the socket. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = CLIENT_ERRORS[err.code ?? ''] ?? { status: 400, reason: 'Bad Request', message: 'The request is not valid HTTP.' };
  const body = JSON.stringify(new ApiError('validation_error', known.message, known.status).toBody());
  // RFC 9110 §9.3.2: the answer to HEAD has no body (a client reading one takes it for the next answer).
  const head = (err as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${known.status} ${known.reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`,
    );
  }
  socket.destroy(err);
}

export default fp(errorReplies, { name: 'postline-error-replies' });
