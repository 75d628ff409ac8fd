// Reading a bounce written for people: the part of the text that is the server's own (not the
// returned message), the addresses it names and the remote server's reply it quotes. Shared by
// the table of known formats (bounce-formats.ts) and the generic fallback.
import type { Email } from 'postal-mime';
import type { Report } from './reports.js';
import { enhancedCodeIn } from './reports.js';

/**
 * Where the returned message starts, as servers mark it (qmail/Yahoo, Exim, GMX, Gmail, Postfix,
 * Domino, Zoho, Outlook) and as postal-mime writes an inline message/rfc822 part into the text.
 */
const RETURNED_MESSAGE =
  /^.*(below this line is a copy of the message|this is a copy of the message|the header of the original message is following|----- original message -----|original message follows|original message headers|message headers follow|the original message was received|--------------------------\nfrom:).*$/im;

/** The bounce's own words: its text (or its HTML's), up to the returned message. */
export function ownText(email: Email): string {
  const text = (email.text || (email.html ?? '').replace(/<[^>]*>/g, ' ')).replace(/\r\n?/g, '\n');
  const cut = RETURNED_MESSAGE.exec(text);
  return (cut ? text.slice(0, cut.index) : text).slice(0, 16_384);
}

const ADDRESS = /[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+/gi;

/** The addresses a text names, in order, without repeats and without the mail system's own. */
export function addressesIn(text: string): string[] {
  const found = (text.match(ADDRESS) ?? []).map((a) => a.replace(/\.$/, ''));
  return [...new Set(found)].filter((a) => !/^(mailer-daemon|postmaster|bounces\+)/i.test(a));
}

/**
 * The remote server's reply quoted in the text: from its first reply code (4xx/5xx, or an
 * enhanced code alone) to the end of that paragraph, unfolded. null when there is none.
 */
function replyIn(text: string): string | null {
  const start = /(?:^|[\s:(['"[])([45][0-9]{2}(?:[ -]+|$)(?:[45]\.\d{1,3}\.\d{1,3})?|#?[45]\.\d{1,3}\.\d{1,3}\b)/m.exec(text);
  if (!start) return null;
  const from = start.index + start[0].indexOf(start[1]!);
  // The paragraph, without qmail's closing line ("Giving up on 192.0.2.25."), which is not the reply.
  const paragraph = text.slice(from).split(/\n[ \t]*\n|\n(?=giving up on )/i)[0]!;
  return paragraph
    .replace(/\s*\n\s*/g, ' ')
    .replace(/^#/, '')
    .trim()
    .replace(/['"]$/, '') // quoted by the reporting server (Exchange: Remote Server returned '550 …')
    .slice(0, 1000);
}

/** The enhanced status of a prose failure or delay: the one in the reply, else the reply code's class. */
function statusOf(kind: 'failed' | 'delayed', reply: string | null): string {
  const enhanced = enhancedCodeIn(reply ?? undefined) ?? /^#?([45]\.\d{1,3}\.\d{1,3})/.exec(reply ?? '')?.[1];
  if (enhanced) return enhanced;
  const code = /^([45])\d\d\b/.exec(reply ?? '')?.[1];
  return `${code ?? (kind === 'failed' ? '5' : '4')}.0.0`;
}

const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 1000);

/**
 * Failures or delays read from prose, one per recipient named: each with the reply quoted in
 * its own stretch of text (from its address to the next one's), or that stretch itself when it
 * quotes no SMTP reply (qmail's "no mailbox here by that name. (#5.1.1)", Domino's reasons).
 * No address named: one report, for the email's single recipient.
 */
export function proseReports(kind: 'failed' | 'delayed', text: string, named: string[] = addressesIn(text)): Report[] {
  const starts = named.map((address) => text.toLowerCase().indexOf(address.toLowerCase()));
  const stretches =
    named.length === 0
      ? [text]
      : starts.map((start, i) => text.slice(Math.max(start, 0), Math.max(...starts.slice(i + 1).filter((s) => s > start), text.length)));
  const recipients = named.length === 0 ? [[]] : named.map((n) => [n]);
  return stretches.map((stretch, i) => {
    const reply = replyIn(stretch);
    const diagnostic = reply && /^[45]\d\d\b/.test(reply) ? reply : squeeze(stretch) || null;
    return { kind, recipients: recipients[i]!, status: statusOf(kind, reply ?? stretch), diagnostic, guessed: true };
  });
}
