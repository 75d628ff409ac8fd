// SMTP replies as delivery reads them: the code decides the outcome (2xx delivered, 4xx
// retried, 5xx bounced) and bounce-classes.ts the bounce type and subType that Resend reports
// in `email.bounced` (resend-compat-notes §7.2). Replies that Postline makes up
// itself (no route, message too large for the server) live here too, so every reply a user
// can see in `last_response` or a bounce comes from this one table.

import { type BounceClass, classifyBounce } from './bounce-classes.js';

interface SmtpReply {
  code: number;
  /** Enhanced status code such as "5.1.1", when the server sent one. */
  enhanced: string | undefined;
  /** The human text, codes stripped, lines joined with a space. */
  text: string;
  /** The reply as received (multi-line replies joined with "\n"). */
  raw: string;
}

export interface Bounce extends BounceClass {
  message: string;
  diagnosticCode: string[];
}

/** Replies Postline answers for itself when no remote server gave one. */
export const LOCAL_REPLIES = {
  noSuchDomain: (domain: string) => `550 5.1.2 ${domain}: the domain does not exist (NXDOMAIN)`,
  nullMx: (domain: string) => `556 5.1.10 ${domain}: the domain accepts no mail (null MX, RFC 7505)`,
  noAddress: (domain: string) => `550 5.1.2 ${domain}: the domain has neither MX nor A/AAAA records`,
  messageTooLarge: (limit: string) => `552 5.3.4 Message size exceeds the server's limit (${limit})`,
  unknownUser: () => '550 5.1.1 Unknown User',
} as const;

export function parseReply(raw: string): SmtpReply {
  const lines = raw.trim().split(/\r?\n/);
  const code = Number(/^(\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  let enhanced: string | undefined;
  const text = lines
    .map((line) => {
      let rest = line.replace(/^\d{3}[ -]?/, '');
      const match = /^([245]\.\d{1,3}\.\d{1,3})(?:\s+|$)/.exec(rest);
      if (match) {
        enhanced ??= match[1];
        rest = rest.slice(match[0].length);
      }
      return rest.trim();
    })
    .filter(Boolean)
    .join(' ');
  return { code, enhanced, text, raw: raw.trim() };
}

export function bounceOf(reply: SmtpReply): Bounce {
  return { ...classifyBounce(reply), message: reply.text || reply.raw, diagnosticCode: [reply.raw] };
}
