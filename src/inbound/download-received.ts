// The signed download URLs of received mail, served without an API key
// (signed-urls/signed-download.ts):
// - GET /downloads/received-emails/:id: the message as stored (RFC 822 bytes, message/rfc822),
//   what the SDK's emails.receiving.forward() fetches;
// - GET /downloads/received-attachments/:id: one attachment, decoded. The stored raw message is
//   parsed again with the options it was parsed with at arrival, and the attachment at the
//   stored position taken; its type and size are checked, so a parser that changed its mind
//   fails loudly rather than serving another part's bytes.
import { ApiError, notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import { SIGNED_URL_QUERY } from '../signed-urls/url-signing.js';
import type { Db } from '../db/database.js';
import type { UrlSigner } from '../signed-urls/url-signing.js';
import { checkDownloadUrl, downloadHeaders } from '../signed-urls/signed-download.js';
import { attachmentBytes, parseMime } from '../message/received-message.js';

export function downloadReceivedEmail(db: Db, signer: () => Promise<UrlSigner>): Route {
  return {
    method: 'GET',
    url: '/downloads/received-emails/:id',
    access: 'public',
    doc: {
      summary: 'A received message as it arrived, through the signed URL the API gives',
      addition: true,
      params: { id: uuid() },
      query: SIGNED_URL_QUERY,
      requiredQuery: ['expires', 'signature'],
      response: { status: 200, contentType: 'message/rfc822', description: 'The raw message, as a download.' },
    },
    async handler({ params, query }) {
      checkDownloadUrl(await signer(), { id: params.id, query, scope: 'raw', what: 'Email' });
      const row = await db.one<{ raw: Buffer }>(`SELECT m.raw FROM received_emails r JOIN inbound_messages m ON m.id = r.inbound_message_id WHERE r.id = $1`, [
        params.id,
      ]);
      if (!row) throw notFound('Email');
      return {
        status: 200,
        body: row.raw,
        headers: downloadHeaders('message/rfc822', `${params.id}.eml`),
      };
    },
  };
}

interface StoredAttachmentRow {
  position: number;
  filename: string | null;
  content_type: string;
  size: number;
  raw: Buffer;
}

export function downloadReceivedAttachment(db: Db, signer: () => Promise<UrlSigner>): Route {
  return {
    method: 'GET',
    url: '/downloads/received-attachments/:id',
    access: 'public',
    doc: {
      summary: "A received attachment's bytes, through the signed URL the API gives",
      addition: true,
      params: { id: uuid() },
      query: SIGNED_URL_QUERY,
      requiredQuery: ['expires', 'signature'],
      response: { status: 200, contentType: 'application/octet-stream', description: 'The file, with its own content type, as a download.' },
    },
    async handler({ params, query }) {
      checkDownloadUrl(await signer(), { id: params.id, query, scope: 'attachment', what: 'Attachment' });
      const row = await db.one<StoredAttachmentRow>(
        `SELECT a.position, a.filename, a.content_type, a.size, m.raw
           FROM received_attachments a
           JOIN received_emails r ON r.id = a.received_email_id
           JOIN inbound_messages m ON m.id = r.inbound_message_id
          WHERE a.id = $1`,
        [params.id],
      );
      if (!row) throw notFound('Attachment');
      const part = (await parseMime(row.raw)).attachments[row.position];
      const bytes = part && attachmentBytes(part);
      if (!part || !bytes || part.mimeType !== row.content_type || bytes.length !== Number(row.size)) {
        throw new ApiError('application_error', 'The attachment could not be read from the stored message.');
      }
      return {
        status: 200,
        body: bytes,
        headers: downloadHeaders(row.content_type, row.filename),
      };
    },
  };
}
