// The accept pipeline: the one way an email enters Postline, whether it comes from the API
// (single or batch), SMTP submission (src/smtp/), broadcasts (src/broadcasts/) and automations
// (src/automations/).
//
//   (check) → render template → validate → resolve sender domain (and topic: apply-topic.ts) → load
//   attachments → compose (with tracking) → sign → apply suppressions and topic opt-outs →
//   persist and enqueue (one transaction)
//
// With `composeAt: 'delivery'` (the API's emails, broadcasts and SMTP submissions) the compose
// and sign steps are left to the delivery worker (compose-deferred.ts): everything else, the
// checks and the one transaction, is the same. An SMTP submission's message is the client's: it
// is prepared here (our Message-ID, no Bcc) and only its signature waits. Emails with
// attachments (their parts are located in the signed message for downloads) and automation
// steps are composed and signed here.
//
// Nothing is acknowledged before the transaction commits: the caller's response (and its
// idempotency record, through `beforeCommit`) is written in that same transaction.
// Hot path: per email only composing and signing; one domain query per submission; one
// transaction with a constant number of statements (persist-and-enqueue.ts), shared by the
// submissions that are ready at the same time (group-commit.ts).
import crypto from 'node:crypto';
import { ApiError } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import { TO_COMPOSE } from '../email-row/stored-message.js';
import type { SendingDomain } from '../domains/sending-domain.js';
import type { TrackingSigners } from '../tracking/tracking-links.js';
import { applySuppressions, lookUpSuppressions } from './apply-suppressions.js';
import { applyTopicOptOuts, lookUpTopicOptOuts } from './apply-topic.js';
import { locateAttachments, locateSubmittedAttachments } from './attachment-parts.js';
import { loadAttachments, type Attachment } from './attachments.js';
import { buildSignedMessage, tracksAny } from './build-message.js';
import { textPart } from './compose.js';
import { signMessage } from '../message/dkim.js';
import type { EmailRequest } from './email-request.js';
import { prepareSubmittedMessage } from './submitted-message.js';
import { deferredText } from './compose-deferred.js';
import type { FetchPolicy } from './fetch-attachment.js';
import { emailsAcceptedBy } from '../metrics/record.js';
import type { GroupCommitter } from './group-commit.js';
import { renderTemplates, type Rendered } from './render-template.js';
import type { EmailSource, OutgoingEmail } from './persist-and-enqueue.js';
import { resolveSenderDomains, type SandboxSending, type SenderPrincipal, senderDomainGone } from './sender-domain.js';

export interface AcceptDeps {
  /** Reads (the sender domains) go straight to the database. */
  db: Queryable;
  /** Writes go through the group committer: persist and enqueue, in one transaction. */
  committer: GroupCommitter;
  /** How attachments given by `path` are fetched (fetch-attachment.ts). */
  attachmentFetch: FetchPolicy;
  /** Signers of tracking links, for domains with open or click tracking (src/tracking). */
  tracking: () => Promise<TrackingSigners>;
  /** POSTLINE_SANDBOX: any sender domain may send (sender-domain.ts). */
  sandbox?: SandboxSending;
}

interface Submission {
  principal: SenderPrincipal;
  source: EmailSource;
  /** The emails as received; `validate` turns each into an EmailRequest or throws an ApiError. */
  payloads: unknown[];
  /**
   * Each email's schema check, before the render step, where no route checked them (a batch's
   * items): an email it refuses is that email's error, as any other.
   */
  check?(payload: unknown): unknown;
  validate(payload: unknown): EmailRequest;
  /**
   * strict: the first invalid email (by position) rejects the whole submission, nothing is
   * written. permissive: invalid emails are skipped and reported, the others accepted.
   */
  mode: 'strict' | 'permissive';
  /** Runs in the accepting transaction after the emails are written (idempotent responses). */
  beforeCommit?(q: Queryable, result: AcceptResult): Promise<void>;
  /**
   * 'delivery': write the emails without their (signed) message; the delivery worker composes
   * and signs each one just before its first attempt (compose-deferred.ts). Accepting then
   * costs a row per email (an API batch, a broadcast's segment, an SMTP session's message), and
   * the CPU of composing and signing is spread over every worker node. Emails with attachments
   * are always composed and signed at accept.
   */
  composeAt?: 'accept' | 'delivery';
}

export interface AcceptResult {
  /** Ids of the accepted emails, in submission order. */
  ids: string[];
  /** Their Message-IDs (with angle brackets), in the same order: what replies will refer to. */
  messageIds: string[];
  /** The emails refused in permissive mode, by position in the submission. */
  errors: { index: number; error: ApiError }[];
}

interface Candidate {
  index: number;
  request?: EmailRequest;
  domain?: SendingDomain;
  error?: ApiError;
  attachments?: Attachment[];
  /** Recipients the email's topic leaves out (apply-topic.ts). */
  topicOptOuts?: Set<string>;
}

export async function acceptEmails(deps: AcceptDeps, submission: Submission): Promise<AcceptResult> {
  const payloads = submission.check ? submission.payloads.map((payload) => refusalOr(() => submission.check!(payload))) : submission.payloads;
  const rendered = await renderTemplates(deps.db, submission.principal.accountId, payloads);
  const candidates = validate(submission, rendered);
  // The two lookups run side by side (one round trip, not two): the suppression list is read
  // for every valid email, including any the sender check then refuses.
  const valid = candidates.filter((c) => c.request).map((c) => c.request!);
  const suppressions = lookUpSuppressions(deps.db, submission.principal.accountId, valid);
  await Promise.all([
    resolveSender(deps.db, submission.principal, candidates, deps.sandbox),
    lookUpTopicOptOuts(deps.db, submission.principal.accountId, candidates),
  ]);
  const accepted = settle(candidates, submission.mode);
  await loadAttachmentsOf(deps.attachmentFetch, accepted);
  const outgoing = await composeAndSign(deps, submission, accepted);
  applySuppressions(outgoing, await suppressions);
  applyTopicOptOuts(
    outgoing,
    accepted.map((c) => c.topicOptOuts),
  );
  const result: AcceptResult = {
    ids: outgoing.map((e) => e.id),
    messageIds: outgoing.map((e) => e.messageId),
    errors: candidates.filter((c) => c.error).map((c) => ({ index: c.index, error: c.error! })),
  };
  await deps.committer.commit(outgoing, submission.beforeCommit && ((q) => submission.beforeCommit!(q, result))).catch((err) => {
    throw senderDomainGone(err, outgoing) ?? err;
  });
  emailsAcceptedBy(submission.source, outgoing.length);
  return result;
}

/** What `run` returns, or the ApiError it throws. */
function refusalOr<T>(run: () => T): T | ApiError {
  try {
    return run();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

function validate(submission: Submission, rendered: Rendered[]): Candidate[] {
  return rendered.map(({ payload, templateId }, index) => {
    if (payload instanceof ApiError) return { index, error: payload }; // from the check or render step
    const request = refusalOr(() => submission.validate(payload));
    if (request instanceof ApiError) return { index, error: request };
    if (templateId) request.templateId = templateId;
    return { index, request };
  });
}

async function resolveSender(q: Queryable, principal: SenderPrincipal, candidates: Candidate[], sandbox: SandboxSending | undefined): Promise<void> {
  const valid = candidates.filter((c) => c.request);
  const check = await resolveSenderDomains(
    q,
    principal,
    valid.map((c) => c.request!.sender.domain),
    sandbox,
  );
  for (const c of valid) {
    const domain = check(c.request!.sender.domain);
    if (domain instanceof ApiError) c.error = domain;
    else c.domain = domain;
  }
}

/** Strict mode stops at the first invalid email; permissive mode keeps the valid ones. */
function settle(candidates: Candidate[], mode: Submission['mode']): Candidate[] {
  if (mode === 'strict') {
    const first = candidates.find((c) => c.error);
    if (first) throw first.error;
  }
  return candidates.filter((c) => !c.error);
}

/**
 * Fetches attachments given by `path` and holds each email to 40 MB. Only POST /emails
 * carries attachments (never batch), so its one email is strict: an error rejects it.
 */
async function loadAttachmentsOf(policy: FetchPolicy, accepted: Candidate[]): Promise<void> {
  for (const c of accepted) {
    const { attachments, html, text } = c.request!;
    if (!attachments?.length) continue;
    c.attachments = await loadAttachments(attachments, Buffer.byteLength(html ?? '') + Buffer.byteLength(text ?? ''), policy);
  }
}

async function composeAndSign(deps: AcceptDeps, submission: Submission, accepted: Candidate[]): Promise<OutgoingEmail[]> {
  const date = new Date();
  const texts = new Map<string, string>(); // a batch often repeats one html: convert it once
  const deferred = (c: Candidate) => submission.composeAt === 'delivery' && !c.request!.submitted && !c.attachments?.length;
  const tracked = accepted.some((c) => !deferred(c) && !c.request!.submitted && tracksAny(c.domain!));
  const signers = tracked ? await deps.tracking() : undefined;
  return Promise.all(
    accepted.map(async (candidate) => {
      const { request, domain, attachments } = candidate;
      const id = crypto.randomUUID();
      const messageId = `<${id}@${domain!.name}>`;
      const email: OutgoingEmail = {
        id,
        accountId: submission.principal.accountId,
        domainId: domain!.id,
        source: submission.source,
        request: request!,
        text: null,
        messageId,
        envelopeFrom: `bounces+${id}@${domain!.returnPathHost}`,
        recipients: uniqueRecipients(request!),
        message: TO_COMPOSE,
      };
      if (deferred(candidate)) {
        email.text = deferredText(request!);
        return email;
      }
      email.text = textPart(request!, texts);
      if (request!.submitted) return prepareSubmitted(email, request!.submitted, domain!, date, submission.composeAt === 'delivery');
      const mime = await buildSignedMessage({ id, request: request!, domain: domain!, text: email.text, messageId, date, attachments, signers });
      email.message = { state: 'signed', message: mime, bodiesInMessage: false };
      email.attachments = attachments && locateAttachments(mime, attachments, !!request!.html);
      return email;
    }),
  );
}

/**
 * SMTP submission brings the message already composed: kept, with our Message-ID set in it
 * (not tracked: its html is the client's MIME, not rewritten). Signed at delivery when asked,
 * unless it has attachments, whose downloads slice the signed message from the start.
 */
async function prepareSubmitted(email: OutgoingEmail, raw: Buffer, domain: SendingDomain, date: Date, signLater: boolean): Promise<OutgoingEmail> {
  const prepared = prepareSubmittedMessage(raw, { messageId: email.messageId, date });
  const attachments = locateSubmittedAttachments(prepared);
  if (signLater && attachments.length === 0) {
    email.message = { state: 'unsigned', message: prepared, bodiesInMessage: email.request.bodiesInMessage ?? false };
    return email;
  }
  const signed = await signMessage(prepared, domain);
  email.message = { state: 'signed', message: signed, bodiesInMessage: email.request.bodiesInMessage ?? false };
  const shift = signed.length - prepared.length; // the signature is prepended
  email.attachments = attachments.map((a) => ({ ...a, offset: a.offset + shift }));
  return email;
}

function uniqueRecipients(request: EmailRequest): { address: string; domain: string }[] {
  const seen = new Map<string, { address: string; domain: string }>();
  for (const m of [...request.toMailboxes, ...request.ccMailboxes, ...request.bccMailboxes]) {
    const key = m.address.toLowerCase();
    if (!seen.has(key)) seen.set(key, { address: m.address, domain: m.domain });
  }
  return [...seen.values()];
}
