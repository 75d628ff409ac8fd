// MAIL FROM: the envelope sender is only checked for form here (SIZE= over the limit is
// refused by smtp-server from the announced SIZE). A submission's envelope sender is not used:
// the accept pipeline sets its own return path. For each authenticated message the session's
// API key is looked up again (cached, api-keys.ts), so a deleted key stops a long-lived session
// too, and the message counts against the account's rate limit, the one the API uses.
import type { SMTPServerAddress, SMTPServerSession } from 'smtp-server';
import type { Principal } from '../api/route.js';
import type { Logger } from '../logger.js';
import type { RateLimiter } from '../rate-limit/rate-limiter.js';
import { REPLIES, SmtpReply } from './replies.js';
import { asciiAddress, principalOf, stateOf } from './session.js';
import { logSubmission, type SubmissionLogDeps } from './submission-log.js';

interface MailFromDeps extends SubmissionLogDeps {
  apiKeys: { authenticate(token: string): Promise<Principal | null> };
  rateLimiter: Pick<RateLimiter, 'hit'>;
  logger: Logger;
}

export function onMailFrom(deps: MailFromDeps) {
  return (address: SMTPServerAddress, session: SMTPServerSession, callback: (err?: Error | null) => void): void => {
    // Not offered in EHLO: Postline cannot deliver UTF-8 addresses yet (addresses/mailbox.ts).
    // (The parameter, not session.envelope.smtpUtf8: smtp-server leaves that set after a refused MAIL.)
    if (address.args !== false && address.args.SMTPUTF8) return callback(REPLIES.smtpUtf8NotSupported());
    if (address.address && !asciiAddress(address.address)) return callback(REPLIES.nonAsciiAddress(address.address));
    if (!principalOf(session)) return callback();
    authorize(deps, address, session).then(
      () => callback(),
      (err) => {
        if (!(err instanceof SmtpReply)) deps.logger.warn({ err }, 'SMTP: MAIL FROM check failed');
        callback(err instanceof SmtpReply ? err : REPLIES.temporaryFailure());
      },
    );
  };
}

async function authorize(deps: MailFromDeps, address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
  const principal = await deps.apiKeys.authenticate(stateOf(session).token ?? '');
  if (!principal) {
    session.user = undefined; // the client may AUTH again, with a valid key
    throw REPLIES.keyNoLongerValid();
  }
  session.user = principal; // its permission or domain may have changed
  const decision = await deps.rateLimiter.hit(`account:${principal.accountId}`);
  if (decision.allowed) return;
  const refusal = REPLIES.rateLimited();
  logSubmission(deps, session, refusal.responseCode, { from: address.address }, { message: refusal.line });
  throw refusal;
}
