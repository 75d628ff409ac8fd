// How a received email reads over the API (resend-compat-notes §2.2) and in its
// `email.received` webhook (§7.2): bare addresses, ISO timestamps, the attachment list, and
// signed download URLs (raw message, attachments) on POSTLINE_PUBLIC_URL that work without an
// API key until they expire (download-received.ts checks them).
import { isoTimestamp } from '../api/format.js';
import { array, constant, integer, isoTime, nullable, object, oneOfValues, string, uuid } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import type { ReceivedEventData } from '../events/payloads.js';
import type { UrlSigner } from '../signed-urls/url-signing.js';

/** Never select the raw message or bodies for a list. */
export const RECEIVED_COLUMNS = 'id, received_for, from_address, to_addresses, cc, bcc, reply_to, subject, message_id, created_at';
export const RECEIVED_ATTACHMENT_COLUMNS = 'id, received_email_id, position, filename, content_type, content_id, content_disposition, size';
/** A received_emails row as RECEIVED_COLUMNS selects it. */
export interface ReceivedEmailRow {
  id: string;
  received_for: string[];
  from_address: string;
  to_addresses: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string;
  message_id: string | null;
  created_at: Date;
}
/** A received_attachments row as RECEIVED_ATTACHMENT_COLUMNS selects it. */
export interface ReceivedAttachmentRow {
  id: string;
  received_email_id: string;
  position: number;
  filename: string | null;
  content_type: string;
  content_id: string | null;
  /** inline | attachment | null (none given) */
  content_disposition: string | null;
  size: number;
}
export interface ReceivedLinks {
  publicUrl: string;
  signer: UrlSigner;
  /** How long a download URL works (POSTLINE_DOWNLOAD_URL_TTL). */
  ttlMs: number;
}

type DownloadKind = 'raw' | 'attachment';
const PATHS: Record<DownloadKind, string> = { raw: 'received-emails', attachment: 'received-attachments' };

/** `/downloads/received-emails/:id` or `/downloads/received-attachments/:id`, signed over (kind, id, expires). */
export function signedDownload(links: ReceivedLinks, kind: DownloadKind, id: string, now = Date.now()) {
  const expiresAt = new Date(Math.floor((now + links.ttlMs) / 1000) * 1000);
  const expires = String(expiresAt.getTime() / 1000);
  const signature = links.signer.sign(kind, id, expires);
  return {
    download_url: `${links.publicUrl}/downloads/${PATHS[kind]}/${id}?expires=${expires}&signature=${signature}`,
    expires_at: isoTimestamp(expiresAt)!,
  };
}

const EMBEDDED_ATTACHMENT_SCHEMA = object({
  id: uuid(),
  filename: nullable(string()),
  size: integer({ description: 'Bytes.' }),
  content_type: string(),
  content_id: nullable(string()),
  content_disposition: nullable(string()),
});
const SIGNED_DOWNLOAD_SCHEMA = {
  download_url: string({ format: 'uri', description: 'Works without an API key until `expires_at`.' }),
  expires_at: isoTime(),
};

/** attachmentWithUrl's shape, for the routes' docs; GET of one adds `object`. */
export const RECEIVED_ATTACHMENT_SCHEMA = object(
  {
    id: uuid(),
    filename: string(),
    size: integer({ description: 'Bytes.' }),
    content_type: string(),
    content_id: string(),
    content_disposition: oneOfValues(['inline', 'attachment']),
    ...SIGNED_DOWNLOAD_SCHEMA,
  },
  ['id', 'size', 'content_type', 'content_disposition', 'download_url', 'expires_at'],
);

const addresses = array(string());
/** receivedSummary's shape. */
export const RECEIVED_SUMMARY_SCHEMA = object({
  id: uuid(),
  to: addresses,
  from: string(),
  created_at: isoTime(),
  subject: string(),
  bcc: addresses,
  cc: addresses,
  reply_to: addresses,
  received_for: addresses,
  message_id: nullable(string()),
  attachments: array(EMBEDDED_ATTACHMENT_SCHEMA),
});
/** GET /emails/receiving/:id's answer. */
export const RECEIVED_SCHEMA = object({
  object: constant('email'),
  ...RECEIVED_SUMMARY_SCHEMA.properties,
  html: nullable(string()),
  text: nullable(string()),
  headers: { type: 'object', additionalProperties: string() },
  raw: object(SIGNED_DOWNLOAD_SCHEMA),
  authentication: object(
    {
      spf: string({ description: 'pass, fail, softfail, neutral, none, temperror or permerror.' }),
      dkim: string({ description: "The best signature's result: pass if any passes; none when unsigned." }),
      dmarc: string({ description: 'pass, fail, none, temperror or permerror.' }),
    },
    ['spf', 'dkim', 'dmarc'],
    { description: "Postline's own: the sender's SPF, DKIM and DMARC verdicts, as recorded when the message arrived." },
  ),
});

/** The attachment metadata embedded in a received email (no URL: those come from the attachment routes). */
function embeddedAttachment(row: ReceivedAttachmentRow) {
  return {
    id: row.id,
    filename: row.filename ?? null,
    size: Number(row.size),
    content_type: row.content_type,
    content_id: row.content_id ?? null,
    content_disposition: row.content_disposition ?? null,
  };
}

/** `RetrievedAttachment` of the attachment routes; GET of one adds `object`. */
/**
 * `AttachmentData`, as the SDK declares the attachment routes' answer: unlike the metadata
 * embedded in an email, `filename` and `content_id` are left out when the part has none, and
 * a part without Content-Disposition reads as an attachment.
 */
export function attachmentWithUrl(row: ReceivedAttachmentRow, links: ReceivedLinks) {
  return {
    id: row.id,
    ...(row.filename !== null ? { filename: row.filename } : {}),
    size: Number(row.size),
    content_type: row.content_type,
    ...(row.content_id !== null ? { content_id: row.content_id } : {}),
    content_disposition: row.content_disposition === 'inline' ? ('inline' as const) : ('attachment' as const),
    ...signedDownload(links, 'attachment', row.id),
  };
}

/** The attachments of each received email among `ids`, in message order, by email id. One query. */
export async function attachmentsOf(q: Queryable, ids: string[]): Promise<Map<string, ReceivedAttachmentRow[]>> {
  const byEmail = new Map<string, ReceivedAttachmentRow[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return byEmail;
  const rows = await q.query<ReceivedAttachmentRow>(
    `SELECT ${RECEIVED_ATTACHMENT_COLUMNS} FROM received_attachments WHERE received_email_id = ANY($1::uuid[]) ORDER BY position`,
    [ids],
  );
  for (const row of rows) byEmail.get(row.received_email_id)!.push(row);
  return byEmail;
}

export function receivedSummary(row: ReceivedEmailRow, attachments: ReceivedAttachmentRow[]) {
  return {
    id: row.id,
    to: row.to_addresses,
    from: row.from_address,
    created_at: isoTimestamp(row.created_at)!,
    subject: row.subject,
    bcc: row.bcc,
    cc: row.cc,
    reply_to: row.reply_to,
    received_for: row.received_for,
    message_id: row.message_id ?? null,
    attachments: attachments.map(embeddedAttachment),
  };
}

/** Headers as an object: the first occurrence of each name (the top-most trace line), named as written. */
export function headerObject(headers: [string, string][]): Record<string, string> {
  const seen = new Set<string>();
  const out: Record<string, string> = {};
  for (const [name, value] of headers) {
    const key = name.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out[name] = value;
  }
  return out;
}

/** The `email.received` webhook `data`: no body, fetch it with GET /emails/receiving/:id. */
export function receivedEventData(row: ReceivedEmailRow, attachments: ReceivedEventData['attachments']): ReceivedEventData {
  return {
    email_id: row.id,
    created_at: isoTimestamp(row.created_at),
    from: row.from_address,
    to: row.to_addresses,
    received_for: row.received_for,
    cc: row.cc,
    bcc: row.bcc,
    message_id: row.message_id ?? null,
    subject: row.subject,
    attachments: attachments.map((a) => ({
      id: a.id,
      filename: a.filename ?? null,
      content_type: a.content_type,
      content_disposition: a.content_disposition ?? null,
      content_id: a.content_id ?? null,
    })),
  };
}
