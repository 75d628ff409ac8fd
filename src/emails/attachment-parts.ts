// Where each attachment sits in the signed message, so it is stored once: the message (which
// delivery needs anyway) holds the bytes, and email_attachments rows point at each part's
// encoded body (0008_attachments.sql). A download reads that slice and decodes it.
//
// The message is walked by its MIME boundaries (MailComposer's, which never occur in base64).
// MailComposer writes attachments in a known order: with an html part, those with a content
// id go into multipart/related next to the html, before the others; each one is checked
// against the part found (type, Content-ID), so a change in that order fails loudly instead of
// pointing a download at the wrong bytes.
import crypto from 'node:crypto';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs';
import type { Queryable } from '../db/database.js';
import type { Attachment } from './attachments.js';
import { decodeTransfer, parseStructuredHeader } from '../message/mime-decoding.js';

export interface StoredAttachment {
  id: string;
  position: number;
  filename: string | null;
  contentType: string;
  contentId: string | null;
  disposition: 'inline' | 'attachment';
  size: number;
  transferEncoding: string;
  offset: number;
  length: number;
}

interface Part {
  headers: string;
  bodyStart: number;
  bodyEnd: number;
}

function header(headers: string, name: string): string | undefined {
  return new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(headers)?.[1]?.trim();
}

/**
 * The leaf parts of the MIME entity at [start, end), depth first, in the order written. Our own
 * messages (MailComposer's) must be whole: anything else throws. A client's (`lenient`, SMTP
 * submission) is read as mail readers read it: a part without a blank line is all header, and
 * a multipart whose closing boundary is missing ends where its entity ends.
 */
function leafParts(mime: Buffer, start: number, end: number, out: Part[], lenient = false): Part[] {
  let headerEnd = mime.indexOf('\r\n\r\n', start);
  if (headerEnd < 0 || headerEnd > end) {
    if (!lenient) throw new Error('attachments: a MIME part has no header/body separator');
    headerEnd = end;
  }
  const headers = mime.toString('latin1', start, headerEnd).replace(/\r\n[ \t]+/g, ' ');
  const contentType = mimeFuncs.parseHeaderValue(header(headers, 'content-type') ?? 'text/plain');
  const boundary = contentType.params.boundary;
  if (!/^multipart\//i.test(contentType.value) || !boundary) {
    out.push({ headers, bodyStart: Math.min(headerEnd + 4, end), bodyEnd: end });
    return out;
  }
  // RFC 2046 §5.1.1: each part follows a "--boundary" line and ends at the CRLF before the next.
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  let at = mime.indexOf(delimiter.subarray(2), headerEnd);
  while (at >= 0 && at < end) {
    const after = at + delimiter.length - 2;
    if (mime[after] === 0x2d && mime[after + 1] === 0x2d) break; // "--boundary--": the last one
    const partStart = mime.indexOf('\r\n', after) + 2;
    let partEnd = partStart < 2 ? -1 : mime.indexOf(delimiter, partStart);
    if (partStart < 2 || partStart > end || partEnd < 0 || partEnd > end) {
      if (!lenient) throw new Error('attachments: unterminated multipart');
      if (partStart < 2 || partStart > end) break; // the boundary line is the entity's last
      partEnd = end;
    }
    leafParts(mime, partStart, partEnd, out, lenient);
    at = partEnd + 2;
  }
  return out;
}

/** The slices of the signed message `mime` that hold `attachments` (in request order). */
export function locateAttachments(mime: Buffer, attachments: Attachment[], hasHtml: boolean): StoredAttachment[] {
  if (attachments.length === 0) return [];
  const parts = leafParts(mime, 0, mime.length, []).filter((p) => header(p.headers, 'content-disposition'));
  const indexed = attachments.map((attachment, position) => ({ attachment, position }));
  const written = hasHtml ? [...indexed.filter((a) => a.attachment.contentId), ...indexed.filter((a) => !a.attachment.contentId)] : indexed;
  if (parts.length !== written.length) throw new Error(`attachments: ${written.length} expected, ${parts.length} found in the message`);
  const stored = written.map(({ attachment, position }, i) => {
    const part = parts[i]!;
    const type = mimeFuncs.parseHeaderValue(header(part.headers, 'content-type') ?? '').value.toLowerCase();
    const cid = header(part.headers, 'content-id');
    if (type !== mimeFuncs.parseHeaderValue(attachment.contentType).value.toLowerCase() || (attachment.contentId && cid !== `<${attachment.contentId}>`)) {
      throw new Error(`attachments: part ${i} of the message is not attachment ${position}`);
    }
    return {
      id: crypto.randomUUID(),
      position,
      filename: attachment.filename,
      contentType: attachment.contentType,
      contentId: attachment.contentId,
      disposition: attachment.disposition,
      size: attachment.content.length,
      transferEncoding: (header(part.headers, 'content-transfer-encoding') ?? '7bit').toLowerCase(),
      offset: part.bodyStart,
      length: part.bodyEnd - part.bodyStart,
    };
  });
  return stored.sort((a, b) => a.position - b.position);
}

/**
 * The attachments of a message submitted over SMTP, which its client composed: the leaf parts
 * a mail reader shows as attachments (a Content-Disposition of attachment, a filename, or a
 * Content-ID on a part that is not text), in message order.
 */
export function locateSubmittedAttachments(mime: Buffer): StoredAttachment[] {
  const stored: StoredAttachment[] = [];
  for (const part of leafParts(mime, 0, mime.length, [], true)) {
    const type = parseStructuredHeader(header(part.headers, 'content-type') ?? 'text/plain');
    const disposition = parseStructuredHeader(header(part.headers, 'content-disposition') ?? '');
    const cid = header(part.headers, 'content-id');
    const filename = disposition.params.filename ?? type.params.name ?? null;
    const isText = /^text\//i.test(type.value);
    if (!(disposition.value.toLowerCase() === 'attachment' || filename || (cid && !isText))) continue;
    const transferEncoding = (header(part.headers, 'content-transfer-encoding') ?? '7bit').toLowerCase();
    stored.push({
      id: crypto.randomUUID(),
      position: stored.length,
      filename,
      contentType: type.value.toLowerCase(),
      contentId: cid ? cid.replace(/^<|>$/g, '') : null,
      disposition: disposition.value.toLowerCase() === 'inline' ? 'inline' : 'attachment',
      size: decodeTransfer(mime.subarray(part.bodyStart, part.bodyEnd), transferEncoding).length,
      transferEncoding,
      offset: part.bodyStart,
      length: part.bodyEnd - part.bodyStart,
    });
  }
  return stored;
}

/** Writes the attachment rows of `emails`, one statement for all. Inside the accepting transaction. */
export async function persistAttachments(q: Queryable, emails: { id: string; accountId: string; attachments?: StoredAttachment[] }[]): Promise<void> {
  const rows = emails.flatMap((e) => (e.attachments ?? []).map((a) => ({ e, a })));
  if (rows.length === 0) return;
  const column = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
  await q.query(
    `INSERT INTO email_attachments (id, email_id, account_id, position, filename, content_type, content_id,
       content_disposition, size, transfer_encoding, mime_offset, mime_length)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[], $5::text[], $6::text[], $7::text[],
       $8::text[], $9::bigint[], $10::text[], $11::bigint[], $12::bigint[])`,
    [
      column((r) => r.a.id),
      column((r) => r.e.id),
      column((r) => r.e.accountId),
      column((r) => r.a.position),
      column((r) => r.a.filename),
      column((r) => r.a.contentType),
      column((r) => r.a.contentId),
      column((r) => r.a.disposition),
      column((r) => r.a.size),
      column((r) => r.a.transferEncoding),
      column((r) => r.a.offset),
      column((r) => r.a.length),
    ],
  );
}
