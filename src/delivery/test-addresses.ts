// Resend's test addresses (resend-compat-notes §8): mail to them produces a known outcome
// without any connection, so developers can exercise their webhook handling safely.
// delivered@, bounced@ and complained@ accept a +label; suppressed@ does not (as at Resend),
// so suppressed+x@resend.dev is an ordinary address at resend.dev.
import { bounceOf, LOCAL_REPLIES, parseReply } from './bounce-codes.js';
import type { Verdict } from './outcomes.js';

const PATTERN = /^(?:(delivered|bounced|complained)(?:\+[^@]*)?|(suppressed))@resend\.dev$/i;

/** Whether `address` is one of Resend's test addresses (whose outcomes are simulated). */
export function isTestAddress(address: string): boolean {
  return PATTERN.test(address.trim());
}

/** The outcome a test address simulates, or undefined for a real address. */
export function simulatedVerdict(address: string): Verdict | undefined {
  const match = PATTERN.exec(address.trim());
  if (!match) return undefined;
  switch ((match[1] ?? match[2])!.toLowerCase()) {
    case 'delivered':
      return { kind: 'delivered', response: '250 2.0.0 OK (resend.dev test address: delivered)' };
    case 'complained':
      return { kind: 'complained', response: '250 2.0.0 OK (resend.dev test address: delivered, then marked as spam)' };
    case 'bounced': {
      const reply = parseReply(LOCAL_REPLIES.unknownUser());
      return { kind: 'bounced', response: reply.raw, bounce: bounceOf(reply) };
    }
    default:
      return {
        kind: 'suppressed',
        response: 'suppressed: the address is on the account suppression list (previous bounce)',
        suppressed: {
          type: 'OnAccountSuppressionList',
          reason: 'previous_bounce',
          message: "The recipient's address is on the account's suppression list because it bounced before.",
          diagnosticCode: [LOCAL_REPLIES.unknownUser()],
        },
      };
  }
}
