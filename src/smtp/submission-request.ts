// The validate step for SMTP submission: a message as the client composed it, and its
// envelope, → the EmailRequest the accept pipeline takes (email-request.ts is the API's).
// The header fields describe the email (from, to, cc, reply_to, subject as stored and shown
// by GET /emails; html and text too when the message was parsed whole, else GET reads them from
// the stored message); the envelope decides who gets it: recipients named in To or Cc are its
// to/cc mailboxes, every other envelope recipient is a Bcc. The message itself is kept
// (EmailRequest.submitted) and prepared by emails/submitted-message.ts.
import { addressParser, type Address } from 'postal-mime';
import type { EmailRequest } from '../emails/email-request.js';
import { noNul, storedBodies } from '../emails/submitted-message.js';
import { parseMailbox, type Mailbox } from '../addresses/mailbox.js';
import { UnparseableMessage, type MessageParser, type ParsedSubmission } from '../message/parse-message.js';
import { MAX_LINE_LENGTH, REPLIES } from './replies.js';

export interface SubmittedMessage {
  raw: Buffer;
  parsed: ParsedSubmission;
  /** Envelope recipients, ASCII, in RCPT order. */
  recipients: string[];
  /** The Resend-Idempotency-Key header, when present (untrimmed values are trimmed). */
  idempotencyKey: string | undefined;
}

/**
 * Refuses what cannot be sent as it is (RFC 5322 §2.1.1 line length, NUL in the header), then
 * parses: a small message's header section only, unless it has an idempotency key, whose
 * fingerprint compares the bodies too.
 */
export async function parseSubmission(parser: MessageParser, raw: Buffer, recipients: string[]): Promise<SubmittedMessage> {
  checkLines(raw);
  try {
    let parsed: ParsedSubmission = await parser.parseForSubmission(raw);
    const key = parsed.headers.find((h) => h.key === 'resend-idempotency-key');
    if (key && !parsed.bodies) parsed = await parser.parse(raw);
    return { raw, parsed, recipients, idempotencyKey: key?.value.trim() };
  } catch (err) {
    if (err instanceof UnparseableMessage) throw REPLIES.contentRefused(`The message could not be parsed: ${err.message}`);
    throw err;
  }
}

function checkLines(raw: Buffer): void {
  let start = 0;
  let line = 1;
  let inHeader = true;
  while (start < raw.length) {
    let end = raw.indexOf(10, start);
    if (end < 0) end = raw.length;
    const length = end - start - (end > start && raw[end - 1] === 13 ? 1 : 0);
    if (length > MAX_LINE_LENGTH) throw REPLIES.lineTooLong(line);
    if (inHeader) {
      if (length === 0) inHeader = false;
      else if (raw.subarray(start, end).includes(0)) throw REPLIES.nulInHeaders();
      // SMTPUTF8 is not offered, so a header field must be ASCII (RFC 5322; RFC 6532 needs
      // SMTPUTF8 end to end): raw UTF-8 here would be relayed to servers that never agreed to it.
      else if (raw.subarray(start, end).some((byte) => byte > 0x7f)) throw REPLIES.eightBitHeader(line);
    }
    start = end + 1;
    line++;
  }
}

const mailboxes = (addresses: Address[]) => addresses.flatMap((a) => (a.group ? a.group : [a])).filter((m) => m.address);

/** A display form of a mailbox for storage: `Name <addr>`, the name quoted when it needs to be. */
function display(m: { name: string; address: string }): string {
  const name = noNul(m.name)
    .replace(/[\r\n]+/g, ' ')
    .trim();
  if (!name) return m.address;
  return /^[\w !#$%&'*+/=?^`{|}~-]+$/.test(name) ? `${name} <${m.address}>` : `"${name.replace(/(["\\])/g, '\\$1')}" <${m.address}>`;
}

function sender(message: ParsedSubmission): { from: string; mailbox: Mailbox } {
  const headers = message.headers.filter((h) => h.key === 'from');
  if (headers.length === 0) throw REPLIES.missingFrom();
  if (headers.length > 1) throw REPLIES.severalFrom();
  const addresses = addressParser(headers[0]!.value);
  if (addresses.length !== 1 || addresses[0]!.group || !addresses[0]!.address) {
    throw REPLIES.badFrom('it must hold exactly one address, like `Name <sender@example.com>`');
  }
  const parsed = addresses[0] as { name: string; address: string };
  let mailbox: Mailbox;
  try {
    mailbox = parseMailbox(parsed.address, 'from');
  } catch {
    throw REPLIES.badFrom(`\`${parsed.address.slice(0, 200)}\` is not a valid address`);
  }
  return { from: display({ name: parsed.name, address: mailbox.address }), mailbox: { ...mailbox, name: parsed.name } };
}

export function submissionRequest(message: SubmittedMessage): EmailRequest {
  const { parsed } = message;
  const { bodies } = parsed;
  const { from, mailbox } = sender(parsed);
  const to = mailboxes(parsed.to);
  const cc = mailboxes(parsed.cc);
  const inTo = new Set(to.map((m) => m.address.toLowerCase()));
  const inCc = new Set(cc.map((m) => m.address.toLowerCase()));
  const envelope = message.recipients.map((address) => parseMailbox(address, 'to')); // checked at RCPT TO
  const named = (set: Set<string>) => envelope.filter((m) => set.has(m.address.toLowerCase()));
  const bcc = envelope.filter((m) => !inTo.has(m.address.toLowerCase()) && !inCc.has(m.address.toLowerCase()));
  const replyTo = mailboxes(parsed.replyTo).map(display);
  return {
    from,
    sender: mailbox,
    to: to.map(display),
    toMailboxes: named(inTo),
    cc: cc.length ? cc.map(display) : null,
    ccMailboxes: named(inCc).filter((m) => !inTo.has(m.address.toLowerCase())),
    bcc: bcc.length ? bcc.map((m) => m.address) : null,
    bccMailboxes: bcc,
    replyTo: replyTo.length ? replyTo : null,
    replyToMailboxes: [], // only used to compose, and this message is composed already
    subject: noNul(parsed.subject ?? ''),
    ...storedBodies(bodies ?? {}),
    bodiesInMessage: !bodies,
    headers: null,
    tags: null,
    scheduledAt: null,
    attachments: null,
    submitted: message.raw,
  };
}

/**
 * What Resend-Idempotency-Key compares: the message as the recipients would read it, not its
 * bytes. A client that sends again builds a new Message-ID, Date and MIME boundaries, and
 * that is still the same message.
 */
export function idempotencyFingerprint(message: SubmittedMessage): unknown {
  const { parsed } = message;
  const bodies = parsed.bodies!; // parsed whole when it has an idempotency key (parseSubmission)
  const header = (key: string) => parsed.headers.filter((h) => h.key === key).map((h) => h.value);
  return {
    recipients: [...message.recipients].map((r) => r.toLowerCase()).sort(),
    from: header('from'),
    to: header('to'),
    cc: header('cc'),
    reply_to: header('reply-to'),
    subject: parsed.subject ?? null,
    html: bodies.html,
    text: bodies.text,
    attachments: bodies.attachments,
  };
}
