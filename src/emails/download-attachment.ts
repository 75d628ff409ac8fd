// GET /downloads/attachments/:id?expires=…&signature=…: the bytes of an attachment, for
// whoever holds a download URL from the API (no API key; the signature is the credential).
// A wrong signature reads as not found; an expired one is refused with 403.
// The bytes are the part's body in the stored message (attachment-parts.ts), decoded. They are
// always served as a download, never rendered: an attachment is not trusted content of this origin.
import { notFound, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Route } from '../api/route.js';
import { SIGNED_URL_QUERY } from '../signing/url-signing.js';
import type { Db } from '../db/database.js';
import { signedMessageSql } from '../email-row/stored-message.js';
import type { UrlSigner } from '../signing/url-signing.js';
import { decodeTransfer } from '../message/mime-decoding.js';

/** RFC 6266: an ASCII fallback and the exact name in RFC 5987 encoding. */
function contentDisposition(filename: string | null): string {
  if (!filename) return 'attachment';
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function downloadAttachment(db: Db, signer: () => Promise<UrlSigner>): Route {
  return {
    method: 'GET',
    url: '/downloads/attachments/:id',
    access: 'public',
    doc: {
      summary: "An attachment's bytes, through the signed URL the API gives",
      addition: true,
      query: SIGNED_URL_QUERY,
      requiredQuery: ['expires', 'signature'],
      response: { status: 200, contentType: 'application/octet-stream', description: 'The file, with its own content type, as a download.' },
    },
    async handler({ params, query }) {
      const { expires, signature } = query;
      const valid = isUuid(params.id) && /^\d{1,12}$/.test(expires ?? '') && typeof signature === 'string';
      if (!valid || !(await signer()).verify(signature!, params.id!, expires!)) throw notFound('Attachment');
      if (Number(expires) * 1000 < Date.now()) throw validation('This download URL has expired; get a new one from the API.', 403);
      const row = await db.one(
        `SELECT a.filename, a.content_type, a.transfer_encoding,
                substring(${signedMessageSql('e')} FROM a.mime_offset::int + 1 FOR a.mime_length::int) AS body
           FROM email_attachments a JOIN emails e ON e.id = a.email_id
          WHERE a.id = $1`,
        [params.id],
      );
      if (!row) throw notFound('Attachment');
      const body = decodeTransfer(row.body, row.transfer_encoding);
      return {
        status: 200,
        body,
        headers: {
          'content-type': row.content_type,
          'content-disposition': contentDisposition(row.filename),
          'cache-control': 'private, no-store',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; sandbox",
        },
      };
    },
  };
}
