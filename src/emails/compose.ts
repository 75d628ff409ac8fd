// The compose step: an accepted email → its MIME message, built once by nodemailer's
// MailComposer. Addresses go in as {name, address} so the composer encodes display names;
// headers the request may set were checked for CR/LF and ownership in email-request.ts.
//
// Speed (the accept hot path): MailComposer decides everything (structure, headers, folding,
// transfer encodings), but its build() streams each part through several Transform streams
// and setImmediate hops, which cost more CPU than the message itself. For trees of in-memory
// text parts, writeTree() writes the same bytes synchronously with nodemailer's own encoders
// (byte-identical to build(), checked when this was written); anything else (attachments,
// streams, raw parts: later issues) goes through build().
import MailComposer from 'nodemailer/lib/mail-composer';
import type MimeNode from 'nodemailer/lib/mime-node';
import * as base64 from 'nodemailer/lib/base64';
import * as qp from 'nodemailer/lib/qp';
import { compile } from 'html-to-text';
import type { Mailbox } from '../addresses/mailbox.js';
import type { Attachment } from './attachments.js';
import type { EmailRequest } from './email-request.js';

/** html-to-text compiles its options once; converting then costs a fraction of convert(). */
const htmlToText = compile({ wordwrap: 80 });

const asAddress = (m: Mailbox) => ({ name: m.name, address: m.address });

/**
 * Line breaks as SMTP sends them (CRLF), so the stored message is byte for byte what goes on
 * the wire and what was signed.
 */
const crlf = (text: string) => text.replace(/\r\n|\r|\n/g, '\r\n');

/** The text html-to-text makes of `html` (the text part of an email given only html). */
export const textFromHtml = (html: string) => htmlToText(html);

/** The text part: as given, none when "" was given, else generated from the html. */
export function textPart(request: EmailRequest, cache?: Map<string, string>): string | null {
  if (request.text !== undefined) return request.text;
  if (!request.html) return null;
  let text = cache?.get(request.html);
  if (text === undefined) {
    text = textFromHtml(request.html);
    cache?.set(request.html, text);
  }
  return text;
}

interface ComposeInput {
  request: EmailRequest;
  text: string | null;
  messageId: string;
  date: Date;
  /** Loaded attachments (attachments.ts): Buffers, so such a message is written by build(). */
  attachments?: Attachment[];
}

const asAttachment = (a: Attachment) => ({
  filename: a.filename,
  content: a.content,
  contentType: a.contentType,
  cid: a.contentId ?? undefined,
  contentDisposition: a.disposition,
});

export async function composeMessage({ request, text, messageId, date, attachments }: ComposeInput): Promise<Buffer> {
  const root = new MailComposer({
    from: asAddress(request.sender),
    to: request.toMailboxes.map(asAddress),
    cc: request.ccMailboxes.length ? request.ccMailboxes.map(asAddress) : undefined,
    replyTo: request.replyToMailboxes.length ? request.replyToMailboxes.map(asAddress) : undefined,
    // Bcc recipients are only in the envelope (deliveries), never in the message.
    subject: request.subject,
    html: request.html === null ? undefined : crlf(request.html),
    text: text === null ? undefined : crlf(text),
    headers: request.headers ?? undefined,
    attachments: attachments?.length ? attachments.map(asAttachment) : undefined,
    messageId,
    date,
  }).compile();
  if (!inMemoryText(root)) return root.build();
  const out: string[] = [];
  writeTree(root, out);
  const message = out.join('');
  // build() ends every message with a line break (its LastNewline transform).
  return Buffer.from(message.endsWith('\n') ? message : `${message}\r\n`, 'utf8');
}

/** True when every node is multipart or a text/* part with string content and no transforms. */
function inMemoryText(node: MimeNode): boolean {
  // MimeNode internals (nodemailer 10): a raw part, stream transforms or a newline conversion
  // would change the bytes build() writes. Re-check byte equality when upgrading nodemailer.
  const internals = node as unknown as { _raw?: unknown; _transforms?: unknown[]; _processFuncs?: unknown[]; newline?: unknown };
  if (internals._raw || internals._transforms?.length || internals._processFuncs?.length || internals.newline) return false;
  const content = node.content;
  if (content !== undefined && typeof content !== 'string') return false;
  return node.childNodes.every(inMemoryText);
}

/** MimeNode.stream() without streams, for the nodes inMemoryText() accepts. */
function writeTree(node: MimeNode, out: string[]): void {
  out.push(`${node.buildHeaders()}\r\n\r\n`); // sets node.multipart and node.boundary
  const content = node.content as string | undefined;
  if (content) {
    const encoding = node.getTransferEncoding();
    if (encoding === 'quoted-printable') out.push(qp.wrap(qp.encode(content), 76));
    else if (encoding === 'base64') out.push(base64.wrap(base64.encode(content), 76));
    else out.push(content);
  }
  if (!node.multipart) return;
  node.childNodes.forEach((child, i) => {
    out.push(`${i > 0 ? '\r\n' : ''}--${node.boundary}\r\n`);
    writeTree(child, out);
  });
  out.push(`\r\n--${node.boundary}--\r\n`);
}
