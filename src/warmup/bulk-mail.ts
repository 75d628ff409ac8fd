// What a sending domain's warm-up holds back by default: bulk mail, never transactional mail
// (a password reset, a receipt). Bulk is a broadcast, or an email from the API or SMTP that
// says so in its own header the way mailbox providers read it:
//   - List-Unsubscribe (RFC 2369): the header Gmail and Yahoo require of bulk and marketing
//     mail, and the one Resend's documentation has API users add to such mail; transactional
//     mail has no list to leave. Every broadcast carries one (audience/unsubscribe-links.ts).
//   - Precedence: bulk, list or junk (RFC 2076 §3.9): the older explicit marker.
// Read from the message as it goes on the wire, so the API's `headers`, SMTP's own headers and
// a template all count alike; only the header block is read, and only for a domain warming up.
interface MailToSend {
  broadcastId: string | null;
  /** The message as it goes on the wire. */
  mime: Buffer | null;
}

const LIST_UNSUBSCRIBE = /^list-unsubscribe[ \t]*:/im;
const PRECEDENCE_BULK = /^precedence[ \t]*:[ \t]*(bulk|list|junk)\b/im;

export function isBulkMail(mail: MailToSend): boolean {
  if (mail.broadcastId) return true;
  if (!mail.mime) return false;
  const header = headerBlock(mail.mime).replace(/\r?\n[ \t]+/g, ' ');
  return LIST_UNSUBSCRIBE.test(header) || PRECEDENCE_BULK.test(header);
}

/** The message's header lines: up to its first empty line. */
function headerBlock(mime: Buffer): string {
  const crlf = mime.indexOf('\r\n\r\n');
  const lf = mime.indexOf('\n\n');
  const end = crlf === -1 ? lf : lf === -1 ? crlf : Math.min(crlf, lf);
  return mime.subarray(0, end === -1 ? mime.length : end).toString('latin1');
}
