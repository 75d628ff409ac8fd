// GET /downloads/attachments/:id?expires=…&signature=…: the bytes of an attachment, for
// whoever holds a download URL from the API (no API key: signed-urls/signed-download.ts). The bytes
// are the part's body in the stored message (attachment-parts.ts), decoded.
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import { SIGNED_URL_QUERY } from '../signed-urls/url-signing.js';
import type { Db } from '../db/database.js';
import { signedMessageSql } from '../email-row/stored-message.js';
import type { UrlSigner } from '../signed-urls/url-signing.js';
import { checkDownloadUrl, downloadHeaders } from '../signed-urls/signed-download.js';
import { decodeTransfer } from '../message/mime-decoding.js';

/** An attachment and its part's body, still transfer-encoded. */
interface AttachmentBodyRow {
  filename: string | null;
  content_type: string;
  transfer_encoding: string;
  /** null while the email has no signed message; an email with attachments is signed at accept (accept.ts). */
  body: Buffer | null;
}

export function downloadAttachment(db: Db, signer: () => Promise<UrlSigner>): Route {
  return {
    method: 'GET',
    url: '/downloads/attachments/:id',
    access: 'public',
    doc: {
      summary: "An attachment's bytes, through the signed URL the API gives",
      addition: true,
      params: { id: uuid() },
      query: SIGNED_URL_QUERY,
      requiredQuery: ['expires', 'signature'],
      response: { status: 200, contentType: 'application/octet-stream', description: 'The file, with its own content type, as a download.' },
    },
    async handler({ params, query }) {
      checkDownloadUrl(await signer(), { id: params.id, query, what: 'Attachment' });
      const row = await db.one<AttachmentBodyRow>(
        `SELECT a.filename, a.content_type, a.transfer_encoding,
                substring(${signedMessageSql('e')} FROM a.mime_offset::int + 1 FOR a.mime_length::int) AS body
           FROM email_attachments a JOIN emails e ON e.id = a.email_id
          WHERE a.id = $1`,
        [params.id],
      );
      if (!row) throw notFound('Attachment');
      const body = decodeTransfer(row.body!, row.transfer_encoding);
      return { status: 200, body, headers: downloadHeaders(row.content_type, row.filename) };
    },
  };
}
