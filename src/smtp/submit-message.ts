// Submission: an authenticated message through the same accept pipeline as POST /emails,
// as named steps:
//   parse (line length, postal-mime) → validate from the headers and the envelope →
//   idempotency (Resend-Idempotency-Key) → accept (sender domain, suppressions, keep the
//   message with our Message-ID, persist and enqueue in one group-committed transaction with
//   the idempotent response) → request log
// and the 250 (with the email id) only once that transaction has committed. The DKIM
// signature is made by the delivery worker before the first attempt, as for the API's emails
// (accept.ts composeAt; a message with attachments is signed here). Messages without
// an idempotency key are accepted together with the key's other messages ready at the same
// time (submission-batch.ts).
import type { SMTPServerSession } from 'smtp-server';
import { ApiError } from '../api/errors.js';
import type { Principal } from '../api/route.js';
import { acceptEmails, type AcceptDeps } from '../emails/accept.js';
import type { IdempotencyOutcome } from '../idempotency/idempotency-keys.js';
import type { EmailRequest } from '../emails/email-request.js';
import type { Logger } from '../logger.js';
import type { MessageParser } from '../message/parse-message.js';
import { ACCEPTED, replyFor, SmtpReply } from './replies.js';
import { idempotencyFingerprint, parseSubmission, submissionRequest, type SubmittedMessage } from './submission-request.js';
import type { AcceptMessages, SubmissionBatcher } from './submission-batch.js';
import { principalOf, recipientsOf } from './session.js';
import { logSubmission, type SubmissionLogDeps, type SubmissionSummary } from './submission-log.js';

/** idempotency-keys.ts's claim on the process's database, bound by server.ts. */
export type ClaimIdempotencyKey = (accountId: string, endpoint: string, key: string, body: unknown) => Promise<IdempotencyOutcome>;

/** Idempotency keys are scoped per account and endpoint: SMTP keys are their own. */
const IDEMPOTENCY_ENDPOINT = 'SMTP';

export interface SubmitDeps extends SubmissionLogDeps {
  accept: AcceptDeps;
  /** Messages without an idempotency key, accepted together with others ready at the same time. */
  batcher: SubmissionBatcher;
  parser: MessageParser;
  claimIdempotencyKey: ClaimIdempotencyKey;
  logger: Logger;
}

/** Returns the text of the 250 reply; throws the SmtpReply to refuse with. */
export async function submitMessage(deps: SubmitDeps, session: SMTPServerSession, raw: Buffer): Promise<string> {
  const principal = principalOf(session)!;
  const summary: SubmissionSummary = { to: recipientsOf(session), size: raw.length };
  try {
    const message = await parseSubmission(deps.parser, raw, summary.to!);
    summary.from = message.parsed.headers.find((h) => h.key === 'from')?.value;
    summary.subject = message.parsed.subject;
    summary.idempotency_key = message.idempotencyKey;
    const { id, replayed } = await accept(deps, principal, message);
    logSubmission(deps, session, 250, summary, { id });
    return replayed ? ACCEPTED.replayed(id) : ACCEPTED.queued(id);
  } catch (err) {
    const reply = replyFor(err);
    // Refusals of the message are the client's business; a 4xx or an unexpected error is ours.
    if (reply.responseCode < 500 || !(err instanceof SmtpReply || err instanceof ApiError)) {
      deps.logger.warn({ err, accountId: principal.accountId, reply: reply.line }, 'SMTP submission not accepted');
    }
    logSubmission(deps, session, reply.responseCode, summary, { message: reply.line });
    throw reply;
  }
}

async function accept(deps: SubmitDeps, principal: Principal, message: SubmittedMessage): Promise<{ id: string; replayed: boolean }> {
  const request = submissionRequest(message); // a malformed message is refused before anything else
  if (message.idempotencyKey === undefined) return { id: await deps.batcher.submit(principal, request), replayed: false };
  const claim = await deps.claimIdempotencyKey(principal.accountId, IDEMPOTENCY_ENDPOINT, message.idempotencyKey, idempotencyFingerprint(message));
  if (claim.kind === 'replay') return { id: (claim.body as { id: string }).id, replayed: true };
  try {
    const { ids } = await acceptEmails(deps.accept, {
      principal,
      source: 'smtp',
      payloads: [request],
      validate: (payload) => payload as EmailRequest,
      mode: 'strict',
      composeAt: 'delivery',
      beforeCommit: (q, result) => claim.save(q, 250, { id: result.ids[0] }),
    });
    return { id: ids[0]!, replayed: false };
  } catch (err) {
    await claim.release().catch(() => {});
    throw err;
  }
}

/** The accept pipeline for messages of one key that were validated already (submission-batch.ts). */
export function acceptSubmitted(deps: AcceptDeps): AcceptMessages {
  return (principal, requests, mode) =>
    acceptEmails(deps, { principal, source: 'smtp', payloads: requests, validate: (payload) => payload as EmailRequest, mode, composeAt: 'delivery' });
}
