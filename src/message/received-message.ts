// Parsing a received message with postal-mime (src/inbound/, and the inbox threads it is filed
// into, src/inboxes/): the fields the API returns (addresses bare, as Resend gives them), the
// headers in message order, and the attachment list. The attachment
// bytes are not kept apart from the raw message: downloads parse the raw again (parseMime, the
// same options) and take the attachment at the stored position, so what a download returns is
// exactly what the parser made of the message the first time.
// Large messages are parsed in the SMTP server's parser thread (parse-message.ts), off the event
// loop that serves every other session and the API.
import type { Address, Attachment, Email } from 'postal-mime';
import { messageParser } from './parse-message.js';

export interface ParsedAttachment {
  position: number;
  filename: string | null;
  contentType: string;
  /** Without angle brackets. */
  contentId: string | null;
  disposition: 'inline' | 'attachment' | null;
  size: number;
}

export interface ParsedMessage {
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  messageId: string | null;
  html: string | null;
  text: string | null;
  /** [name as written, value unfolded] in message order. */
  headers: [string, string][];
  attachments: ParsedAttachment[];
}

/** The first header field named `name` (lower case) of `headers`, unfolded; undefined when there is none. */
export const header = (headers: ParsedMessage['headers'], name: string) => headers.find(([n]) => n.toLowerCase() === name)?.[1];

/** The message as postal-mime's Email; throws UnparseableMessage when it cannot be parsed. */
export function parseMime(raw: Buffer): Promise<Email> {
  return messageParser.parseEmail(raw);
}

/** PostgreSQL text cannot hold NUL; a message may (binary junk in a text part). */
const noNul = (s: string) => (s.includes('\0') ? s.replaceAll('\0', '\uFFFD') : s);

/** Bare addresses, group members included. */
function addresses(list: Address[] | Address | undefined): string[] {
  const all = list === undefined ? [] : Array.isArray(list) ? list : [list];
  return all
    .flatMap((a) => (a.group ? a.group.map((m) => m.address) : [a.address ?? '']))
    .filter((a) => a !== '')
    .map(noNul);
}

export const bareContentId = (id: string | undefined) => (id ? id.replace(/^<|>$/g, '').trim() || null : null);

export const attachmentBytes = (a: Attachment): Buffer =>
  typeof a.content === 'string' ? Buffer.from(a.content, a.encoding === 'base64' ? 'base64' : 'utf8') : Buffer.from(a.content as ArrayBuffer);

export function describeMessage(email: Email): ParsedMessage {
  return {
    from: addresses(email.from)[0] ?? '',
    to: addresses(email.to),
    cc: addresses(email.cc),
    bcc: addresses(email.bcc),
    replyTo: addresses(email.replyTo),
    subject: noNul(email.subject ?? ''),
    messageId: email.messageId ? noNul(email.messageId) : null,
    html: email.html ? noNul(email.html) : null,
    text: email.text ? noNul(email.text) : null,
    headers: email.headers.map((h) => [h.originalKey, noNul(h.value)]),
    attachments: email.attachments.map((a, position) => ({
      position,
      filename: a.filename ? noNul(a.filename) : null,
      contentType: a.mimeType || 'application/octet-stream',
      contentId: bareContentId(a.contentId),
      disposition: a.disposition ?? null,
      size: typeof a.content === 'string' ? attachmentBytes(a).length : (a.content as ArrayBuffer).byteLength,
    })),
  };
}

/** What a message that cannot be parsed at all is stored as: its bytes are kept regardless. */
export const UNPARSEABLE: ParsedMessage = {
  from: '',
  to: [],
  cc: [],
  bcc: [],
  replyTo: [],
  subject: '',
  messageId: null,
  html: null,
  text: null,
  headers: [],
  attachments: [],
};
