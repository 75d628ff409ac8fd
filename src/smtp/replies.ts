// Every SMTP reply Postline's session policy gives, in one table: the code, the enhanced
// status code (RFC 3463) and the text. smtp-server's own replies (syntax errors, bad command
// sequence, timeouts) carry its enhanced codes; ours carry these (listener.ts keeps them).
// The accept pipeline's errors (ApiError) are turned into replies here too.
import { ApiError } from '../api/errors.js';
import { MAX_EMAIL_BYTES, MAX_EMAIL_SIZE } from '../api/limits.js';

/**
 * RFC 5321 §4.2: reply text is printable US-ASCII. Texts here may quote what the client sent
 * (an address with 8-bit bytes, a header value in an error of the accept pipeline), which
 * would otherwise go out as UTF-8; each such character is shown as `?`. (smtp-server itself
 * blanks control characters.)
 */
const asciiText = (text: string) => text.replace(/[^\x20-\x7e]/g, '?');

/** A refusal: smtp-server replies with `responseCode` and `message` (which starts with the enhanced code). */
export class SmtpReply extends Error {
  readonly text: string;

  constructor(
    readonly responseCode: number,
    readonly enhanced: string,
    text: string,
  ) {
    super(`${enhanced} ${asciiText(text)}`);
    this.text = asciiText(text);
  }

  /** The reply line as the client sees it. */
  get line(): string {
    return `${this.responseCode} ${this.message}`;
  }
}

const reply = (code: number, enhanced: string, text: string) => new SmtpReply(code, enhanced, text);

/** RFC 5322 §2.1.1: a line is at most 998 characters before its CRLF. */
export const MAX_LINE_LENGTH = 998;

export const REPLIES = {
  // connection
  tooManyConnectionsFromAddress: () => reply(421, '4.7.0', 'Too many connections from your address, try again later'),
  dataTimeout: () => reply(421, '4.4.2', 'Timeout while receiving the message, closing connection'),
  shuttingDown: () => reply(421, '4.3.2', 'Server shutting down, try again later'),

  // AUTH
  authInvalid: () => reply(535, '5.7.8', 'Authentication credentials invalid'),
  authTooManyFailures: () => reply(421, '4.7.0', 'Too many failed authentication attempts, closing connection'),
  authUnavailable: () => reply(454, '4.7.0', 'Temporary authentication failure, try again later'),
  keyNoLongerValid: () => reply(530, '5.7.0', 'Authentication required: the API key of this session was deleted, or its OAuth grant revoked'),
  authNeedsTls: () => reply(538, '5.7.11', 'Encryption required: use STARTTLS or the implicit TLS port before AUTH'),

  // MAIL FROM, RCPT TO
  smtpUtf8NotSupported: () => reply(555, '5.5.4', 'SMTPUTF8 is not supported'),
  nonAsciiAddress: (address: string) => reply(553, '5.6.7', `<${address}>: non-ASCII addresses are not supported`),
  badRecipient: (address: string) => reply(553, '5.1.3', `<${address}>: bad recipient address syntax`),
  postmasterNotSubmitted: () =>
    reply(553, '5.1.3', '<postmaster>: submission needs a full address; mail for the postmaster of this server is taken without AUTH'),
  rateLimited: () => reply(451, '4.7.1', 'Rate limit exceeded: too many messages per second for this account, try again later'),
  relayDenied: (address: string) => reply(554, '5.7.1', `<${address}>: Relay access denied`),
  tooManyRecipients: (max: number) => reply(452, '4.5.3', `Too many recipients: at most ${max} per message`),

  // DATA
  busy: () => reply(452, '4.3.1', 'Insufficient system storage: too many messages are being received at once, try again later'),
  messageTooBig: () => reply(552, '5.3.4', `Message size exceeds the limit of ${MAX_EMAIL_BYTES} bytes (${MAX_EMAIL_SIZE})`),
  lineTooLong: (line: number) =>
    reply(550, '5.6.0', `Line ${line} is longer than ${MAX_LINE_LENGTH} characters (RFC 5322 2.1.1): encode the content as quoted-printable or base64`),
  nulInHeaders: () => reply(550, '5.6.0', 'The message header contains a NUL character'),
  eightBitHeader: (line: number) =>
    reply(
      554,
      '5.6.9',
      `Line ${line}: raw 8-bit bytes in a header field need SMTPUTF8, which this server does not offer: encode non-ASCII text as RFC 2047 encoded-words`,
    ),
  missingFrom: () => reply(550, '5.6.0', 'The message has no From header'),
  severalFrom: () => reply(550, '5.6.0', 'The message has more than one From header'),
  badFrom: (detail: string) => reply(550, '5.1.7', `Bad From header: ${detail}`),
  senderRefused: (detail: string) => reply(550, '5.7.1', detail),
  contentRefused: (detail: string) => reply(550, '5.6.0', detail),
  badIdempotencyKey: (detail: string) => reply(554, '5.5.4', `Invalid Resend-Idempotency-Key header: ${detail}`),
  idempotencyMismatch: () => reply(554, '5.7.0', 'This Resend-Idempotency-Key was used with a different message: change the key or the message'),
  idempotencyInFlight: () => reply(451, '4.7.0', 'A message with this Resend-Idempotency-Key is still being accepted, try again later'),
  temporaryFailure: () => reply(451, '4.3.0', 'Temporary local problem, the message was not accepted: try again later'),
} as const;

/** Texts of the 250 replies to DATA. */
export const ACCEPTED = {
  queued: (id: string) => `2.0.0 Ok: queued as ${id}`,
  replayed: (id: string) => `2.0.0 Ok: queued as ${id} (Resend-Idempotency-Key seen before: not sent again)`,
  received: () => '2.0.0 Ok: received',
};

/** The reply for an error of the accept pipeline or the idempotency check. */
function replyForApiError(err: ApiError): SmtpReply {
  switch (err.errorName) {
    case 'invalid_idempotency_key':
      return REPLIES.badIdempotencyKey(err.message);
    case 'invalid_idempotent_request':
      return REPLIES.idempotencyMismatch();
    case 'concurrent_idempotent_requests':
      return REPLIES.idempotencyInFlight();
    case 'rate_limit_exceeded':
      return REPLIES.rateLimited();
    case 'application_error':
    case 'service_unavailable':
      return REPLIES.temporaryFailure();
    default:
      // 403s are the sender rules (domain not verified, key restricted to another domain).
      return err.statusCode === 403 ? REPLIES.senderRefused(err.message) : REPLIES.contentRefused(err.message);
  }
}

/** Any error → the reply to give: ours as they are, the pipeline's mapped, anything else a 451 (retry). */
export function replyFor(err: unknown): SmtpReply {
  if (err instanceof SmtpReply) return err;
  if (err instanceof ApiError) return replyForApiError(err);
  return REPLIES.temporaryFailure();
}
