// What the hooks know about a session beyond smtp-server's own session object: who
// authenticated (session.user holds the API key's principal, as smtp-server keeps it), how
// many AUTH attempts failed on this connection, and the envelope in the ASCII form the rest of
// Postline uses.
import { domainToASCII } from 'node:url';
import type { SMTPServerSession } from 'smtp-server';
import type { Principal } from '../api/route.js';

interface SessionState {
  /** Counted in the per-address connection count (on-connect.ts), to be released on close. */
  counted: boolean;
  authFailures: number;
  /** The API key the session authenticated with, checked again for each message (on-mail-from.ts). */
  token?: string;
}

const states = new WeakMap<SMTPServerSession, SessionState>();

export function stateOf(session: SMTPServerSession): SessionState {
  let state = states.get(session);
  if (!state) {
    state = { counted: false, authFailures: 0 };
    states.set(session, state);
  }
  return state;
}

/** The authenticated API key, or undefined for an unauthenticated (inbound) session. */
export function principalOf(session: SMTPServerSession): Principal | undefined {
  return (session.user as Principal | undefined) || undefined;
}

/**
 * An envelope address as Postline stores it: smtp-server turns IDN domains into Unicode, this
 * turns them back into A-labels. undefined when the local part is not ASCII (SMTPUTF8, which
 * Postline does not offer) or the domain cannot be encoded.
 */
export function asciiAddress(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  if (at < 0) return /^[\x21-\x7e]+$/.test(address) ? address : undefined;
  const local = address.slice(0, at);
  if (!/^[\x21-\x7e]+$/.test(local)) return undefined;
  const domain = domainToASCII(address.slice(at + 1));
  return domain ? `${local}@${domain}` : undefined;
}

/** The envelope's recipients, ASCII, in RCPT order (each was checked by on-rcpt-to.ts). */
export function recipientsOf(session: SMTPServerSession): string[] {
  return session.envelope.rcptTo.map((r) => asciiAddress(r.address) ?? r.address);
}

/** The envelope sender, '' for the null reverse-path <>. */
export function senderOf(session: SMTPServerSession): string {
  const from = session.envelope.mailFrom;
  return from ? (asciiAddress(from.address) ?? from.address) : '';
}
