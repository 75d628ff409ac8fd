// RCPT TO: the no-open-relay rule. An authenticated session submits, to any address (up to 50
// per message, the API's limit); an unauthenticated one may only deliver to what inbound mail
// accepts (receiving-enabled domains of ours, our return paths for DSNs, `postmaster`: see
// src/inbound/recipients.ts), anything else is `554 5.7.1 Relay access denied`.
// A submission cannot go to a bare `postmaster` (no domain: there is nowhere to send it); the
// reply says to send it without AUTH, as mail for the server itself.
import type { SMTPServerAddress, SMTPServerSession } from 'smtp-server';
import { MAX_RECIPIENTS } from '../api/limits.js';
import type { Logger } from '../logger.js';
import { parseMailbox } from '../addresses/mailbox.js';
import { REPLIES } from './replies.js';
import { asciiAddress, principalOf } from './session.js';

export interface RecipientPolicy {
  acceptsRecipient(address: string): Promise<boolean>;
}

interface RcptToDeps {
  inbound: RecipientPolicy;
  logger: Logger;
}

/** Inbound mail takes more: RFC 5321 §4.5.3.1.8 asks servers to accept at least 100. */
const MAX_INBOUND_RECIPIENTS = 100;

export function onRcptTo(deps: RcptToDeps) {
  return (address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void): void => {
    const ascii = asciiAddress(address.address);
    if (!ascii) return callback(REPLIES.nonAsciiAddress(address.address));
    const principal = principalOf(session);
    const max = principal ? MAX_RECIPIENTS : MAX_INBOUND_RECIPIENTS;
    const key = address.address.toLowerCase();
    const repeated = session.envelope.rcptTo.some((r) => r.address.toLowerCase() === key);
    if (!repeated && session.envelope.rcptTo.length >= max) return callback(REPLIES.tooManyRecipients(max));
    if (principal) {
      if (ascii.toLowerCase() === 'postmaster') return callback(REPLIES.postmasterNotSubmitted());
      try {
        parseMailbox(ascii, 'to'); // the API's own address rules, so the message cannot fail on them later
      } catch {
        return callback(REPLIES.badRecipient(ascii));
      }
      return callback();
    }
    deps.inbound.acceptsRecipient(ascii).then(
      (accepted) => callback(accepted ? null : REPLIES.relayDenied(ascii)),
      (err) => {
        deps.logger.warn({ err }, 'SMTP: recipient lookup failed');
        callback(REPLIES.temporaryFailure());
      },
    );
  };
}
