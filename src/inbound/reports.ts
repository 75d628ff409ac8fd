// Reading the reports that come back to a return path: delivery status notifications
// (RFC 3464: a multipart/report whose message/delivery-status part has one block of fields for
// the message and one per recipient) and feedback reports (RFC 5965 ARF: a
// message/feedback-report part). postal-mime splits the report into its parts; the status and
// feedback parts are plain header-style field blocks, read here. Anything else arriving at a
// return path (auto-replies, vacation notices, free-text bounces) is no report and yields none.
import type { Email } from 'postal-mime';
import { attachmentBytes } from './received-message.js';

export type Report =
  /** Action: failed. `status` is the DSN's Status (e.g. 5.1.1); `diagnostic` its Diagnostic-Code as written. */
  | { kind: 'failed'; recipients: string[]; status: string; diagnostic: string | null }
  /** Action: delayed: the remote MTA keeps trying. */
  | { kind: 'delayed'; recipients: string[]; status: string; diagnostic: string | null }
  /** An ARF report of a type that means "the recipient did not want this". */
  | { kind: 'complaint'; recipients: string[]; feedbackType: string };

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
    const status = /^[245]\.\d{1,3}\.\d{1,3}/.exec(first(fields, 'status') ?? '')?.[0] ?? (action === 'failed' ? '5.0.0' : '4.0.0');
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
