// multipart/form-data bodies (uploads: POST /contacts/imports) for routes declaring
// `bodyShape: 'multipart'`. @fastify/multipart (busboy) parses them as they arrive: the
// route's handler reads the parts in the client's order from `ctx.form`, a file part as a
// stream of chunks, so nothing holds a whole upload in memory. Errors of the parser become
// the wire contract's ApiErrors here (413 past a limit, 400 for a malformed or cut-short
// body). The request log gets a summary (field values and each file's name and size),
// never a file's bytes.
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError, validation } from '../api/errors.js';
import type { FormPart } from '../api/route.js';

/** A text field's largest value (fields carry options, not data), and parts per body: bounds what one request makes us buffer. */
const FIELD_BYTES = 256 * 1024;
const MAX_PARTS = 20;

/** Adds multipart parsing to `instance` (an encapsulated context holding only the upload routes). */
export async function registerMultipart(instance: FastifyInstance): Promise<void> {
  await instance.register(fastifyMultipart, { limits: { fieldSize: FIELD_BYTES, parts: MAX_PARTS } });
}

/** The parts of `req`'s multipart body, errors translated; `req.body` becomes their log summary. */
export async function* formParts(req: FastifyRequest, maxFileBytes: number): AsyncGenerator<FormPart> {
  const summary: Record<string, unknown> = {};
  req.body = summary;
  const parts = req.parts({ limits: { fileSize: maxFileBytes, fieldSize: FIELD_BYTES, parts: MAX_PARTS } });
  try {
    for await (const part of parts) {
      if (part.type === 'field') {
        if (part.valueTruncated) throw validation(`The \`${part.fieldname}\` field is larger than ${FIELD_BYTES} bytes.`, 413);
        const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
        summary[part.fieldname] = value;
        yield { kind: 'field', name: part.fieldname, value };
        continue;
      }
      const logged = { filename: part.filename, mime_type: part.mimetype, bytes: 0 };
      summary[part.fieldname] = logged;
      const content = fileContent(part.file, logged, maxFileBytes);
      yield { kind: 'file', name: part.fieldname, filename: part.filename, mimeType: part.mimetype, content: content.chunks };
      // busboy goes on to the next part only once this file has been read: a handler that
      // skipped it must not stall the request.
      if (!content.started()) await drain(part.file);
    }
  } catch (err) {
    throw multipartError(err, maxFileBytes);
  }
}

function fileContent(file: Readable & { truncated?: boolean }, logged: { bytes: number }, maxFileBytes: number) {
  let started = false;
  async function* chunks(): AsyncGenerator<Buffer> {
    started = true;
    try {
      for await (const chunk of file) {
        logged.bytes += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
    } catch (err) {
      throw multipartError(err, maxFileBytes);
    }
    // Past the limit busboy stops the file short and marks it, rather than failing it.
    if (file.truncated) throw tooLarge(maxFileBytes);
  }
  return { chunks: chunks(), started: () => started };
}

async function drain(file: Readable): Promise<void> {
  for await (const _ of file) {
    /* discarded */
  }
}

const tooLarge = (maxFileBytes: number) => validation(`The file is larger than ${maxFileBytes} bytes.`, 413);

function multipartError(err: unknown, maxFileBytes: number): ApiError {
  if (err instanceof ApiError) return err;
  switch ((err as { code?: string }).code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return tooLarge(maxFileBytes);
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return validation(`The multipart body has more than ${MAX_PARTS} parts.`, 413);
    case 'FST_MP_PREMATURE_CLOSE':
      return validation('The request was closed before its multipart body was complete.', 400);
    default:
      // Everything the parser throws is about the body it was sent (no boundary, a malformed
      // part header, an unexpected end, a reserved field name).
      return validation(`The multipart body is malformed: ${(err as Error).message ?? String(err)}`, 400);
  }
}
