// The compose step for a message submitted over SMTP (src/smtp/): the client composed it, so
// it is kept byte for byte (custom headers, MIME structure, 8-bit content) except for the
// header fields Postline owns:
//   Bcc                     removed: its recipients are in the envelope, never in the message;
//   Message-ID              replaced by ours, <email id@domain>, as for API sends (and as
//                           Resend does): events, GET /emails and bounce matching name it;
//   Return-Path             removed: the receiving MTA writes it from our envelope sender;
//   Resend-Idempotency-Key  removed: it is addressed to Postline, not to the recipients;
//   Date                    added when missing.
// Line ends become CRLF, so the stored message is what goes on the wire and what is signed.
// A small submission's html and text are not stored beside it (EmailRequest.bodiesInMessage):
// bodiesOfSubmitted() reads them from the stored message for GET /emails/:id.
import PostalMime from 'postal-mime';

/** PostgreSQL text cannot hold NUL; a text part may (binary junk). The message keeps its bytes. */
export const noNul = (s: string) => (s.includes('\0') ? s.replaceAll('\0', '\uFFFD') : s);

const DROPPED = new Set(['bcc', 'message-id', 'return-path', 'resend-idempotency-key']);

/** The bytes as a string, one character per byte (latin1), so nothing is decoded or altered. */
const asBytes = (raw: Buffer) => raw.toString('latin1');

function crlf(text: string): string {
  return /(^|[^\r])\n/.test(text) ? text.replace(/\r?\n/g, '\r\n') : text;
}

/** The header section's fields, each with its continuation lines and its CRLF. */
function fields(head: string): string[] {
  const out: string[] = [];
  for (const line of head.split(/(?<=\r\n)/)) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && out.length > 0) out[out.length - 1] += line;
    else if (line !== '') out.push(line);
  }
  return out;
}

const fieldName = (field: string) =>
  field
    .slice(0, Math.max(0, field.indexOf(':')))
    .trim()
    .toLowerCase();

/** RFC 5322 date-time, e.g. "Tue, 01 Jul 2025 10:00:00 +0000". */
const rfc5322Date = (date: Date) => date.toUTCString().replace(/GMT$/, '+0000');

export function prepareSubmittedMessage(raw: Buffer, { messageId, date }: { messageId: string; date: Date }): Buffer {
  const text = crlf(asBytes(raw));
  // A message may be all header (no body): it then has no empty line, and gets one.
  const split = text.startsWith('\r\n') ? 0 : text.indexOf('\r\n\r\n');
  const head = split < 0 ? (text.endsWith('\r\n') || text === '' ? text : `${text}\r\n`) : text.slice(0, split === 0 ? 0 : split + 2);
  const body = split < 0 ? '' : text.slice(split === 0 ? 2 : split + 4);
  const kept = fields(head).filter((field) => !DROPPED.has(fieldName(field)));
  const added = [`Message-ID: ${messageId}\r\n`];
  if (!kept.some((field) => fieldName(field) === 'date')) added.push(`Date: ${rfc5322Date(date)}\r\n`);
  return Buffer.from(`${added.join('')}${kept.join('')}\r\n${body}`, 'latin1');
}

/**
 * The html and text of a stored submission whose bodies were left in it, as accepting it whole
 * would have stored them. The message was accepted on its header section alone; a body that
 * postal-mime cannot read shows as none rather than failing the request.
 */
export async function bodiesOfSubmitted(message: Buffer): Promise<StoredBodies> {
  try {
    return storedBodies(await PostalMime.parse(message, { attachmentEncoding: 'arraybuffer' }));
  } catch {
    return { html: null, text: null };
  }
}

interface StoredBodies {
  html: string | null;
  text: string | null;
}

/** A submission's html and text as stored and shown: an empty part is none, NUL is U+FFFD. */
export function storedBodies(parsed: { html?: string | null; text?: string | null }): StoredBodies {
  return { html: parsed.html ? noNul(parsed.html) : null, text: parsed.text ? noNul(parsed.text) : null };
}
