// The signed download URLs of received mail, served without an API key (the signature is the
// credential; a wrong one reads as not found, an expired one is refused with 403):
// - GET /downloads/received-emails/:id: the message as stored (RFC 822 bytes, message/rfc822),
//   what the SDK's emails.receiving.forward() fetches;
// - GET /downloads/received-attachments/:id: one attachment, decoded. The stored raw message is
//   parsed again with the options it was parsed with at arrival, and the attachment at the
//   stored position taken; its type and size are checked, so a parser that changed its mind
//   fails loudly rather than serving another part's bytes.
// Always downloads, never rendered: received mail is not trusted content of this origin.
import { ApiError, notFound, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Route } from '../api/route.js';
import { SIGNED_URL_QUERY } from '../signing/url-signing.js';
import type { Db } from '../db/database.js';
import type { UrlSigner } from '../signing/url-signing.js';
import { attachmentBytes, parseMime } from '../message/received-message.js';
import type { DownloadKind } from './received-view.js';

const DOWNLOAD_HEADERS = {
  'cache-control': 'private, no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
};

/** RFC 6266: an ASCII fallback and the exact name in RFC 5987 encoding. */
function contentDisposition(filename: string | null): string {
  if (!filename) return 'attachment';
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

async function checkSignature(signer: () => Promise<UrlSigner>, kind: DownloadKind, id: string | undefined, query: Record<string, string | undefined>) {
  const { expires, signature } = query;
  const valid = isUuid(id) && /^\d{1,12}$/.test(expires ?? '') && typeof signature === 'string';
  if (!valid || !(await signer()).verify(signature!, kind, id!, expires!)) throw notFound(kind === 'raw' ? 'Email' : 'Attachment');
  if (Number(expires) * 1000 < Date.now()) throw validation('This download URL has expired; get a new one from the API.', 403);
}

export function downloadReceivedEmail(db: Db, signer: () => Promise<UrlSigner>): Route {
  return {
    method: 'GET',
    url: '/downloads/received-emails/:id',
    access: 'public',
    doc: {
      summary: 'A received message as it arrived, through the signed URL the API gives',
      addition: true,
      query: SIGNED_URL_QUERY,
      requiredQuery: ['expires', 'signature'],
      response: { status: 200, contentType: 'message/rfc822', description: 'The raw message, as a download.' },
    },
    async handler({ params, query }) {
      await checkSignature(signer, 'raw', params.id, query);
      const row = await db.one<{ raw: Buffer }>(`SELECT m.raw FROM received_emails r JOIN inbound_messages m ON m.id = r.inbound_message_id WHERE r.id = $1`, [
        params.id,
      ]);
      if (!row) throw notFound('Email');
      return {
        status: 200,
        body: row.raw,
        headers: { 'content-type': 'message/rfc822', 'content-disposition': contentDisposition(`${params.id}.eml`), ...DOWNLOAD_HEADERS },
      };
    },
  };
}

export function downloadReceivedAttachment(db: Db, signer: () => Promise<UrlSigner>): Route {
  return {
    method: 'GET',
    url: '/downloads/received-attachments/:id',
    access: 'public',
    doc: {
      summary: "A received attachment's bytes, through the signed URL the API gives",
      addition: true,
      query: SIGNED_URL_QUERY,
      requiredQuery: ['expires', 'signature'],
      response: { status: 200, contentType: 'application/octet-stream', description: 'The file, with its own content type, as a download.' },
    },
    async handler({ params, query }) {
      await checkSignature(signer, 'attachment', params.id, query);
      const row = await db.one(
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
        headers: { 'content-type': row.content_type, 'content-disposition': contentDisposition(row.filename), ...DOWNLOAD_HEADERS },
      };
    },
  };
}
