// What a message that reached a return path is, tried in order:
//   1. a standard report: RFC 3464 DSN or RFC 5965 ARF (reports.ts);
//   2. an auto-reply by a sign no bounce carries (X-Autoreply, Precedence: auto_reply, a
//      vacation subject…): never a bounce, whatever its text says;
//   3. a known non-standard format, by its family's tell-tales (bounce-formats.ts): a delay
//      warning's wording (bounce-prose.ts DELAY_WORDING) before any failure wording;
//   4. an auto-reply by its wording (away, challenge-response, "we received your message");
//   5. a bounce in prose from any other server: sent by a mailer daemon or with a null
//      envelope sender, and worded as one; recipients and reply read from its text (a delay
//      by its wording, or for a recipient whose text holds a 4.x.x status: never a hard bounce);
//   6. an automatic answer by RFC 3834's Auto-Submitted alone (bounces carry it too);
//   7. unrecognised.
// Every verdict comes with its reason, which is stored with the message (store-return-path-mail.ts).
import type { Email } from 'postal-mime';
import { autoReplyWording, autoSubmitted, strongAutoReplySign } from './auto-replies.js';
import { BOUNCE_FORMATS, type BounceFormat, type ReturnPathMail } from './bounce-formats.js';
import { addressesIn, DELAY_WORDING, ownText, proseReports } from './bounce-prose.js';
import { attachmentBytes } from '../message/received-message.js';
import { hasReportPart, readReports, type Report } from './reports.js';

export type Verdict = 'bounce' | 'delay' | 'complaint' | 'auto_reply' | 'no_news' | 'unrecognised';

export interface Recognition {
  verdict: Verdict;
  /** The format it was read as: rfc3464, arf, a family of bounce-formats.ts, prose, auto-reply, none. */
  format: string;
  reason: string;
  reports: Report[];
}

const BOUNCE_SUBJECT =
  /undeliver|not delivered|delivery (status notification|failure|failed|problem|has failed|delayed|incomplete)|returned mail|failure notice|mail delivery failed|could not be delivered|non-?delivery|delayed mail|warning: (message|could not send)/i;
const BOUNCE_WORDS =
  /could not be delivered|was not delivered|couldn't be delivered|delivery (to the following recipients? )?(has )?failed|unable to deliver|undeliverable|permanent(ly)? (error|failure|fatal)|has not yet been delivered|will (be retried|keep trying|continue to try)|user unknown|no such user/i;

/** The first field `name` (lower case) of a header section, unfolded. */
function fieldIn(section: string, name: string): string | undefined {
  const line = new RegExp(`^${name.replace(/[^a-z0-9]/g, '\\$&')}[ \\t]*:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(section);
  return line?.[1]?.replace(/\r?\n[ \t]+/g, ' ').trim();
}

const BLANK_LINE = /\r?\n\r?\n/;
/** A text up to its first blank line: a header section. */
const headerSection = (text: string) => text.slice(0, text.search(BLANK_LINE) === -1 ? text.length : text.search(BLANK_LINE));

/**
 * The header section of the message a report returns (its message/rfc822 part): the part's
 * bytes when postal-mime kept it as an attachment, else read from the raw message, as
 * postal-mime writes an inline message/rfc822 part into the text without its header: the
 * part's own header lines and the returned message's. A message/rfc822 part is never
 * transfer-encoded (RFC 2046 §5.2.1), so its header is in the raw bytes as written.
 */
function returnedHeaders(email: Email, raw: Uint8Array): string[] {
  const attached = email.attachments
    .filter((a) => /^(message\/rfc822|text\/rfc822-headers)$/i.test(a.mimeType))
    .map((a) => headerSection(attachmentBytes(a).toString('utf8', 0, 65_536)));
  const text = Buffer.from(raw.buffer, raw.byteOffset, Math.min(raw.byteLength, 262_144)).toString('latin1');
  const bodyStart = text.search(BLANK_LINE);
  const part = bodyStart === -1 ? null : /^content-type:[ \t]*message\/rfc822\b/im.exec(text.slice(bodyStart));
  if (!part) return attached;
  const partHeaders = text.slice(bodyStart + part.index);
  const inner = partHeaders.slice(partHeaders.search(BLANK_LINE)).replace(/^\r?\n\r?\n/, '');
  return [...attached, headerSection(partHeaders), headerSection(inner)];
}

function viewOf(email: Email, raw: Uint8Array): ReturnPathMail {
  let returned: string[] | undefined; // read when a format asks (Hotmail's complaints)
  const headers = new Map<string, string>();
  for (const { key, value } of email.headers) if (!headers.has(key.toLowerCase())) headers.set(key.toLowerCase(), value);
  return {
    from: (email.from?.address ?? '').toLowerCase(),
    subject: email.subject ?? '',
    header: (name) => headers.get(name),
    returnedHeader: (name) => (returned ??= returnedHeaders(email, raw)).map((section) => fieldIn(section, name)).find((value) => value !== undefined),
    fullText: (email.text || email.html || '').replace(/\r\n?/g, '\n').slice(0, 65_536),
    ownText: ownText(email),
  };
}

const verdictOf = (reports: Report[]): Verdict =>
  reports.some((r) => r.kind === 'complaint') ? 'complaint' : reports.some((r) => r.kind === 'failed') ? 'bounce' : 'delay';

function standard(email: Email): Recognition | null {
  if (!hasReportPart(email)) return null;
  const reports = readReports(email);
  const arf = email.attachments.some((a) => a.mimeType.toLowerCase() === 'message/feedback-report');
  const format = arf ? 'arf' : 'rfc3464';
  if (reports.length === 0) {
    const why = arf ? 'a feedback report of a type that is no complaint (not-spam, auth-failure…)' : 'a DSN with no failed or delayed recipient';
    return { verdict: 'no_news', format, reason: why, reports };
  }
  return { verdict: verdictOf(reports), format, reason: arf ? 'an ARF feedback report (RFC 5965)' : 'a delivery status notification (RFC 3464)', reports };
}

function knownFormat(mail: ReturnPathMail, format: BounceFormat): Recognition | null {
  if (!format.identify(mail)) return null;
  const named = format.recipients?.(mail) ?? addressesIn(mail.ownText);
  if (format.complaint) {
    return {
      verdict: 'complaint',
      format: format.name,
      reason: `a complaint in ${format.name}'s format`,
      reports: [{ kind: 'complaint', recipients: named, feedbackType: 'abuse' }],
    };
  }
  const words = `${mail.subject}\n${mail.ownText}`;
  const kind = format.delayed?.test(words) || DELAY_WORDING.test(words) ? 'delayed' : format.failed?.test(words) ? 'failed' : null;
  if (!kind) return null;
  const reports = proseReports(kind, mail.ownText, named);
  const verdict = verdictOf(reports);
  return { verdict, format: format.name, reason: `a ${verdict === 'bounce' ? 'bounce' : 'delay warning'} in ${format.name}'s format`, reports };
}

function prose(mail: ReturnPathMail, mailFrom: string): Recognition | null {
  const fromDaemon = mailFrom === '' || /^(mailer-daemon|postmaster|mail-daemon)@/i.test(mail.from) || /mail delivery/i.test(mail.header('from') ?? '');
  const words = `${mail.subject}\n${mail.ownText}`;
  if (!(fromDaemon && (BOUNCE_SUBJECT.test(mail.subject) || BOUNCE_WORDS.test(mail.ownText) || DELAY_WORDING.test(words)))) return null;
  const reports = proseReports(DELAY_WORDING.test(words) ? 'delayed' : 'failed', mail.ownText);
  const verdict = verdictOf(reports);
  const why = `a ${verdict === 'bounce' ? 'bounce' : 'delay warning'} in prose from ${mail.from || 'a null sender'}, read from its wording`;
  return { verdict, format: 'prose', reason: why, reports };
}

/**
 * What `email` (arrived with envelope sender `mailFrom`, `raw` its bytes as received) is;
 * undefined `email`: it could not be parsed.
 */
export function recogniseReturnPathMail(email: Email | undefined, mailFrom: string, raw: Uint8Array): Recognition {
  if (!email) return { verdict: 'unrecognised', format: 'none', reason: 'the message could not be parsed', reports: [] };
  const found = standard(email);
  if (found) return found;
  const mail = viewOf(email, raw);
  const autoReply = strongAutoReplySign(mail);
  if (autoReply) return { verdict: 'auto_reply', format: 'auto-reply', reason: autoReply, reports: [] };
  for (const format of BOUNCE_FORMATS) {
    const known = knownFormat(mail, format);
    if (known) return known;
  }
  const wording = autoReplyWording(mail);
  if (wording) return { verdict: 'auto_reply', format: 'auto-reply', reason: wording, reports: [] };
  const fromProse = prose(mail, mailFrom);
  if (fromProse) return fromProse;
  const automatic = autoSubmitted(mail);
  if (automatic) return { verdict: 'auto_reply', format: 'auto-reply', reason: automatic, reports: [] };
  return { verdict: 'unrecognised', format: 'none', reason: 'no report, no known bounce format, no bounce wording and no auto-reply sign', reports: [] };
}
