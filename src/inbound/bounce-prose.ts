// Reading a bounce written for people: the part of the text that is the server's own (not the
// returned message), the addresses it names, the remote server's reply it quotes, and whether it
// is a delay warning. Shared by the table of known formats (bounce-formats.ts) and the generic
// fallback. Never a false bounce: a delay warning's wording ("will retry", "delayed", "still
// trying"…) makes it a delay whatever its layout, checked before any failure wording; and a
// recipient whose part of the text holds a 4.x.x status (or a 4xx reply) is reported delayed,
// not failed, unless the server says it gave up (then a failure with that 4.x.x status, which
// record-reports.ts classes Transient: never a hard bounce, never a suppression).
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
function replyIn(raw: string): string | null {
  // Zoho writes the reply code apart: "[Status: Error, Address: <…>, ResponseCode 421, , Host not reachable.]".
  const text = raw.replace(/\bResponseCode ([45]\d\d)\b[ ,]*/gi, '$1 ');
  const start = /(?:^|[\s:(['"[])([45][0-9]{2}(?:[ -]+|$)(?:[45]\.\d{1,3}\.\d{1,3})?|#?[45]\.\d{1,3}\.\d{1,3}(?![\d.]*\d))/m.exec(text);
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
  const enhanced = enhancedCodeIn(reply ?? undefined) ?? /^#?([45]\.\d{1,3}\.\d{1,3})(?![\d.]*\d)/.exec(reply ?? '')?.[1];
  if (enhanced) return enhanced;
  const code = /^([45])\d\d\b/.exec(reply ?? '')?.[1];
  return `${code ?? (kind === 'failed' ? '5' : '4')}.0.0`;
}

/**
 * Phrases that say the server keeps trying: checked before any failure wording, by every known
 * format and the generic fallback. Negations ("will not be retried", "has stopped trying") match
 * none of them.
 */
export const DELAY_WORDING =
  /has not yet been delivered|not (been )?delivered yet|delivery attempts will continue|delivery will continue to be attempted|will (keep|continue) (trying|to try|attempting)|will (be )?retr(y|ied)\b|still (being )?(retr(y|ied|ying)|tried|attempted|trying)|still undelivered|this is a warning (message )?only|delivery incomplete|\bdelayed\b/i;

/** Phrases that say the server gave up: a 4.x.x status then stays a (Transient) failure rather than a delay. */
const GAVE_UP =
  /giving up|given up|gave up|stopped trying|will not (be )?(retr(y|ied)|try|redeliver)|won'?t (be )?(retr(y|ied)|try)|retry timeout exceeded|message expired|too long in (the )?queue|in the queue too long|could not be delivered for \d|deleted from (the )?queue|not going to try again/i;

/** A 4.x.x enhanced status code anywhere in a text (`4.4.7`, `#4.2.2`), not the start of an IP address (`[4.2.2.1]`). */
const TEMPORARY_CODE = /(?:^|[\s#([-])(4\.\d{1,3}\.\d{1,3})(?=$|[\s:;,)\]]|\.(?!\d))/;

const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 1000);

/**
 * Failures or delays read from prose, one per recipient named: each with the reply quoted in
 * its own stretch of text (from its address to the next one's), or that stretch itself when it
 * quotes no SMTP reply (qmail's "no mailbox here by that name. (#5.1.1)", Domino's reasons).
 * No address named: one report, for the email's single recipient. A failure whose stretch holds
 * a temporary status (a 4.x.x code anywhere in it, or a 4xx reply; the whole text when it names
 * one recipient or none) is a delay, unless the text says the server gave up.
 */
export function proseReports(kind: 'failed' | 'delayed', text: string, named: string[] = addressesIn(text)): Report[] {
  const starts = named.map((address) => text.toLowerCase().indexOf(address.toLowerCase()));
  const stretches =
    named.length === 0
      ? [text]
      : starts.map((start, i) => text.slice(Math.max(start, 0), Math.max(...starts.slice(i + 1).filter((s) => s > start), text.length)));
  const recipients = named.length === 0 ? [[]] : named.map((n) => [n]);
  const gaveUp = GAVE_UP.test(text);
  return stretches.map((stretch, i) => {
    const reply = replyIn(stretch);
    const diagnostic = reply && /^[45]\d\d\b/.test(reply) ? reply : squeeze(stretch) || null;
    const status = statusOf(kind, reply ?? stretch);
    const temporary = TEMPORARY_CODE.exec(named.length <= 1 ? text : stretch)?.[1];
    if (kind === 'failed' && !gaveUp && (status.startsWith('4') || temporary)) {
      const delayedStatus = status.startsWith('4') ? status : temporary!;
      return { kind: 'delayed', recipients: recipients[i]!, status: delayedStatus, diagnostic, guessed: true };
    }
    if (kind === 'failed' && temporary && !status.startsWith('4')) {
      // Gave up after temporary failures: a failure, with the 4.x.x status (Transient, not suppressed).
      return { kind, recipients: recipients[i]!, status: temporary, diagnostic, guessed: true };
    }
    return { kind, recipients: recipients[i]!, status, diagnostic, guessed: true };
  });
}
