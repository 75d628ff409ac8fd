// Reading the reports that come back to a return path: delivery status notifications
// (RFC 3464: a multipart/report whose message/delivery-status part has one block of fields for
// the message and one per recipient) and feedback reports (RFC 5965 ARF: a
// message/feedback-report part). postal-mime splits the report into its parts; the status and
// feedback parts are plain header-style field blocks, read here. Anything else arriving at a
// return path (free-text bounces, auto-replies) is for recognise-return-path-mail.ts.
import type { Email } from 'postal-mime';
import { attachmentBytes } from '../message/received-message.js';

/**
 * What a report says about recipients. `recipients` are the names it gives (the first that is
 * one of the email's recipients is taken); `guessed` marks names found in prose, which may all
 * be someone else's (a forwarding address, the reporting host's postmaster): when none is a
 * recipient, a single-recipient email's recipient is still meant.
 */
export type Report =
  /** Action: failed. `status` is the most precise enhanced code (e.g. 5.1.1); `diagnostic` the Diagnostic-Code as written. */
  | { kind: 'failed'; recipients: string[]; status: string; diagnostic: string | null; guessed?: boolean }
  /** Action: delayed: the remote MTA keeps trying. */
  | { kind: 'delayed'; recipients: string[]; status: string; diagnostic: string | null; guessed?: boolean }
  /** An ARF report of a type that means "the recipient did not want this". */
  | { kind: 'complaint'; recipients: string[]; feedbackType: string; guessed?: boolean };

type Fields = Map<string, string[]>;

/** Feedback types that count as a complaint; not-spam and auth-failure (DMARC forensics) do not. */
const COMPLAINTS = new Set(['abuse', 'fraud', 'virus']);

/** Blocks of `Name: value` fields separated by blank lines, continuation lines unfolded, names lower-cased. */
function fieldBlocks(text: string): Fields[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((block) => block.replace(/\n[ \t]+/g, ' ').trim())
    .filter(Boolean)
    .map((block) => {
      const fields: Fields = new Map();
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim().toLowerCase();
        fields.set(name, [...(fields.get(name) ?? []), line.slice(colon + 1).trim()]);
      }
      return fields;
    });
}

/** An enhanced status code anywhere in a text (`550 5.1.1`, `550-5.1.1`, `#5.1.1`), not the start of an IP address (`[4.2.2.1]`). */
export const enhancedCodeIn = (text: string | undefined) => /(?:^|[\s#([-])([245]\.\d{1,3}\.\d{1,3})(?=$|[\s:;,)\]]|\.(?!\d))/.exec(text ?? '')?.[1];

/**
 * A generic Status (x.0.0) says less than the enhanced code in the Diagnostic-Code (Courier,
 * Exim, SES and Gmail write `Status: 5.0.0` beside `550 5.1.1 …`): that one, when its class agrees.
 */
function preciseStatus(status: string, diagnostic: string | undefined): string {
  if (!/^\d\.0\.0$/.test(status)) return status;
  const found = enhancedCodeIn(diagnostic);
  return found && found[0] === status[0] ? found : status;
}

const first = (fields: Fields, name: string) => fields.get(name)?.[0];

/** `rfc822; user@example.com` (or `utf-8; …`, or a bare address) → the address. */
function address(value: string | undefined): string | null {
  if (!value) return null;
  const bare = value.includes(';') ? value.slice(value.indexOf(';') + 1) : value;
  const cleaned = bare.trim().replace(/^<|>$/g, '').trim();
  return cleaned.includes('@') ? cleaned : null;
}

function deliveryStatus(text: string): Report[] {
  const reports: Report[] = [];
  // The first block describes the message (Reporting-MTA …); each block with an Action, a recipient.
  for (const fields of fieldBlocks(text).filter((f) => f.has('action'))) {
    const action = first(fields, 'action')?.toLowerCase().split(/[\s(]/)[0];
    if (action !== 'failed' && action !== 'delayed') continue; // delivered, relayed, expanded: no news
    const given = /^[245]\.\d{1,3}\.\d{1,3}/.exec(first(fields, 'status') ?? '')?.[0] ?? (action === 'failed' ? '5.0.0' : '4.0.0');
    const status = preciseStatus(given, first(fields, 'diagnostic-code'));
    // The original recipient is the address we sent to; the final one may be after forwarding.
    const names = [address(first(fields, 'original-recipient')), address(first(fields, 'final-recipient'))];
    reports.push({ kind: action, recipients: names.filter((n): n is string => n !== null), status, diagnostic: first(fields, 'diagnostic-code') ?? null });
  }
  return reports;
}

function feedbackReport(text: string): Report[] {
  const fields = fieldBlocks(text)[0];
  const feedbackType =
    first(fields ?? new Map(), 'feedback-type')
      ?.toLowerCase()
      .trim() ?? '';
  if (!fields || !COMPLAINTS.has(feedbackType)) return [];
  const recipients = (fields.get('original-rcpt-to') ?? []).map(address).filter((a): a is string => a !== null);
  return [{ kind: 'complaint', recipients, feedbackType }];
}

/** Whether the message has a report part at all (a DSN or ARF report, even one that changes nothing). */
export const hasReportPart = (email: Email) => email.attachments.some((part) => REPORT_PARTS.has(part.mimeType.toLowerCase()));

const REPORT_PARTS = new Set(['message/delivery-status', 'message/global-delivery-status', 'message/feedback-report']);

/** The reports a message carries; [] when it is not a DSN or an ARF report. */
export function readReports(email: Email): Report[] {
  const reports: Report[] = [];
  for (const part of email.attachments) {
    const type = part.mimeType.toLowerCase();
    if (type === 'message/delivery-status' || type === 'message/global-delivery-status') {
      reports.push(...deliveryStatus(attachmentBytes(part).toString('utf8')));
    } else if (type === 'message/feedback-report') {
      reports.push(...feedbackReport(attachmentBytes(part).toString('utf8')));
    }
  }
  return reports;
}
