// GET /sandbox/messages/:id/attachments/:index: one attachment of a captured message, its bytes
// as they were sent, by its position among the message's attachments (GET /sandbox/messages/:id
// lists them with their `index`). Always a download, never rendered: an HTML attachment is the
// sender's content, not this origin's (downloadHeaders: attachment, nosniff, a sandboxing CSP).
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { integer, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { downloadHeaders } from '../signed-urls/signed-download.js';
import { findCaptured, parseCaptured } from './captured-message.js';

/** A media type as a header may carry it: anything else a message says is served as bytes. */
const MEDIA_TYPE = /^[\w!#$&^.+-]{1,127}\/[\w!#$&^.+-]{1,127}$/;

export function downloadCapturedAttachment(db: Db): Route {
  return {
    method: 'GET',
    url: '/sandbox/messages/:id/attachments/:index',
    doc: {
      summary: 'One attachment of a captured message, as a download with the type and name the message gave it',
      addition: true,
      params: { id: uuid(), index: integer({ minimum: 0, maximum: 9999, description: 'Its `index` in the message’s `attachments` (from 0).' }) },
      response: {
        status: 200,
        description:
          'The bytes, `Content-Disposition: attachment` with the file name made safe (an ASCII fallback and the exact name, RFC 6266); never shown inline.',
        contentType: 'application/octet-stream',
        schema: string({ contentMediaType: 'application/octet-stream' }),
      },
    },
    async handler({ principal, params }) {
      const row = await findCaptured(db, principal.accountId, params.id!);
      const attachment = (await parseCaptured(row)).attachments[Number(params.index)];
      if (!attachment) throw notFound('Attachment');
      const type = attachment.mimeType.toLowerCase();
      const content = Buffer.from(attachment.content as ArrayBuffer);
      return { body: content, headers: downloadHeaders(MEDIA_TYPE.test(type) ? type : 'application/octet-stream', attachment.filename) };
    },
  };
}
