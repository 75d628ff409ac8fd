// How a sent email's attachment reads over the API (resend-compat-notes §2.1
// `RetrievedAttachment`): its metadata and a signed download URL on POSTLINE_PUBLIC_URL that
// works without an API key until it expires (download-attachment.ts checks it).
import { isoTimestamp } from '../api/format.js';
import { constant, integer, isoTime, object, oneOfValues, string, uuid } from '../api/schema.js';
import type { UrlSigner } from '../signed-urls/url-signing.js';

export const ATTACHMENT_COLUMNS = 'id, position, filename, content_type, content_id, content_disposition, size';
/** An email_attachments row as ATTACHMENT_COLUMNS selects it. */
export interface AttachmentRow {
  id: string;
  position: number;
  filename: string | null;
  content_type: string;
  content_id: string | null;
  content_disposition: 'inline' | 'attachment';
  size: number;
}

export interface DownloadLinks {
  publicUrl: string;
  signer: UrlSigner;
  /** How long a download URL works (POSTLINE_DOWNLOAD_URL_TTL). */
  ttlMs: number;
}

/** `/downloads/attachments/:id?expires=<unix seconds>&signature=…`, signed over (id, expires). */
function downloadUrl(links: DownloadLinks, id: string, expiresAt: Date): string {
  const expires = String(Math.floor(expiresAt.getTime() / 1000));
  const signature = links.signer.sign(id, expires);
  return `${links.publicUrl}/downloads/attachments/${id}?expires=${expires}&signature=${signature}`;
}

/** attachmentSummary's shape, for the routes' docs. `filename` and `content_id` are left out when the attachment has none (the SDK's AttachmentData declares them optional). */
export const ATTACHMENT_SUMMARY_SCHEMA = object(
  {
    id: uuid(),
    filename: string(),
    content_type: string(),
    content_id: string(),
    content_disposition: oneOfValues(['inline', 'attachment']),
    size: integer({ description: 'Bytes.' }),
    download_url: string({ format: 'uri', description: 'Works without an API key until `expires_at`.' }),
    expires_at: isoTime(),
  },
  ['id', 'content_type', 'content_disposition', 'size', 'download_url', 'expires_at'],
);
export const ATTACHMENT_SCHEMA = object({ object: constant('attachment'), ...ATTACHMENT_SUMMARY_SCHEMA.properties }, [
  'object',
  ...(ATTACHMENT_SUMMARY_SCHEMA.required as string[]),
]);

/** A list item; GET of one attachment adds `object`. */
export function attachmentSummary(row: AttachmentRow, links: DownloadLinks, now = Date.now()) {
  const expiresAt = new Date(Math.floor((now + links.ttlMs) / 1000) * 1000);
  return {
    id: row.id,
    ...(row.filename !== null ? { filename: row.filename } : {}),
    content_type: row.content_type,
    ...(row.content_id !== null ? { content_id: row.content_id } : {}),
    content_disposition: row.content_disposition,
    size: Number(row.size),
    download_url: downloadUrl(links, row.id, expiresAt),
    expires_at: isoTimestamp(expiresAt)!,
  };
}

export function attachmentDetail(row: AttachmentRow, links: DownloadLinks) {
  return { object: 'attachment' as const, ...attachmentSummary(row, links) };
}
