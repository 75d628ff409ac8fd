// The outcomes Resend's test addresses simulate (addresses/test-addresses.ts says which address
// is which): decided by the worker without a connection, so developers can exercise their
// webhook handling safely.
import { testAddressOutcome } from '../addresses/test-addresses.js';
import { bounceOf, LOCAL_REPLIES, parseReply } from './bounce-codes.js';
import type { Verdict } from './outcomes.js';

/** The outcome a test address simulates, or undefined for a real address. */
export function simulatedVerdict(address: string): Verdict | undefined {
  const outcome = testAddressOutcome(address);
  if (!outcome) return undefined;
  switch (outcome) {
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
