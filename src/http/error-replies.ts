// Every error as Resend's body `{statusCode, message, name}`: concepts' ApiErrors as they are,
// Fastify's own (body too large, wrong media type, other 4xx) mapped onto the catalogue, and
// anything unexpected logged and answered 500 without its details.
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
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

export default fp(errorReplies, { name: 'postline-error-replies' });
