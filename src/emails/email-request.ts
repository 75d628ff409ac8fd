// The validate step for the API: one `SendEmailRequest` (resend-compat-notes §2.1) → an
// EmailRequest, or a Resend error. Its schema (emailRequestSchema) is the check of POST /emails
// (the route's, api/request-schema.ts), of each email of a batch and of the payloads Postline
// builds itself (parseEmailRequest); emailRequestOf then does what a schema cannot say:
// addresses' syntax, html or text, the email's size, the headers Postline writes, the time
// `scheduled_at` names, tags in Resend's own words. Every string that becomes a header line is
// kept to one line by the schema or by address parsing, so nothing a caller sends can add a
// header of its own.
import { missingField, validation } from '../api/errors.js';
import { MAX_EMAIL_BYTES, MAX_EMAIL_SIZE, MAX_RECIPIENTS } from '../api/limits.js';
import { type RequestCheck, requestCheck } from '../api/request-schema.js';
import { array, input, type JsonSchema, string } from '../api/schema.js';
import { parseMailbox, type Mailbox } from '../addresses/mailbox.js';
import { MAX_STRING_VALUE } from '../templates/variables.js';
import { ATTACHMENT_SCHEMA, type AttachmentBody, attachmentRequests, type AttachmentRequest } from './attachments.js';
import { MAX_SCHEDULED_AT_LENGTH, parseScheduledAt } from './schedule.js';

export interface EmailRequest {
  /** `from` as given (trimmed), stored and reported as is. */
  from: string;
  sender: Mailbox;
  /** Each list as given (trimmed) for storage, and parsed for composing and the envelope. */
  to: string[];
  toMailboxes: Mailbox[];
  cc: string[] | null;
  ccMailboxes: Mailbox[];
  bcc: string[] | null;
  bccMailboxes: Mailbox[];
  replyTo: string[] | null;
  replyToMailboxes: Mailbox[];
  subject: string;
  html: string | null;
  /** undefined: generate from html; null: no text part ("" given); string: as given. */
  text: string | null | undefined;
  headers: Record<string, string> | null;
  tags: { name: string; value: string }[] | null;
  /** When to send (schedule.ts); null: now. */
  scheduledAt: Date | null;
  /** Validated attachments (attachments.ts), loaded by the accept pipeline's load step. */
  attachments: AttachmentRequest[] | null;
  /** Sent only to recipients subscribed to this topic (apply-topic.ts). */
  topicId?: string;
  /**
   * SMTP submission: the message as the client composed it. The compose step keeps it
   * (submitted-message.ts) instead of composing one; the fields above then describe it for
   * storage, events and the API, and its to/cc/bcc mailboxes are the envelope's recipients.
   */
  submitted?: Buffer;
  /**
   * A submitted message whose html and text were left in it (html and text are null here):
   * GET /emails/:id reads them from the stored message (get-email.ts), so accepting a small
   * submission parses only its header section (src/message/parse-message.ts).
   */
  bodiesInMessage?: boolean;
  /**
   * A broadcast's email (src/broadcasts/fan-out.ts): the broadcast and the contact it goes to,
   * stored with the email (one per contact: emails_broadcast_contact) and queued as bulk.
   */
  broadcast?: { id: string; contactId: string };
  /** The published template it was rendered from (render-template.ts), for events' data. */
  templateId?: string;
}

type Addresses = string | string[];

/** A body that passed emailRequestSchema (nulls of optional fields dropped). */
export interface EmailBody {
  from?: string;
  to: Addresses;
  subject?: string;
  cc?: Addresses;
  bcc?: Addresses;
  reply_to?: Addresses;
  html?: string;
  text?: string;
  headers?: Record<string, string>;
  tags?: { name: string; value: string }[];
  scheduled_at?: string;
  attachments?: AttachmentBody[];
  topic_id?: string;
  template?: { id: string; variables?: Record<string, string | number> };
  react?: null;
}

/** What emailRequestOf reads: a checked body with its content, from a template's render step (render-template.ts) if it named one. */
export type SendableBody = Omit<EmailBody, 'template'> & { from: string; subject: string };

/** Headers the composer writes from the request's own fields or that Postline owns. */
const OWNED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'sender',
  'subject',
  'date',
  'message-id',
  'return-path',
  'dkim-signature',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
]);
/** RFC 5322 §3.6.8 field-name: printable ASCII except ':'. */
const FIELD_NAME = '^[!-9;-~]{1,100}$';
/** Resend's pattern for a tag's name and value, refused in Resend's words (emailRequestOf), so not a schema pattern. */
const TAG = /^[A-Za-z0-9_-]{1,256}$/;
const NO_LINE_BREAKS = '^[^\\r\\n\\u0000]*$';

/** `pattern`, refused in its own words while the field's type keeps its. */
const worded = (pattern: string, message: string): JsonSchema => ({ anyOf: [{ pattern, 'x-message': message }] });

// No minLength: an empty address is refused as any malformed one is, in Resend's words (mailbox.ts).
const ADDRESS = string({ description: '`addr` or `Name <addr>`.' });
const addresses = (description: string): JsonSchema => ({ type: ['string', 'array'], items: ADDRESS, maxItems: MAX_RECIPIENTS, description });
const TAG_PART = string({ description: 'ASCII letters, digits, `_` and `-`, at most 256 characters.' });
/** A template's content replaces html and text (`react` is refused anyway). */
const NOT_WITH_TEMPLATE: JsonSchema = { not: {}, 'x-message': 'be left out when a `template` is given' };
const NOT_IN_BATCH: JsonSchema = { not: {}, description: 'Not supported in batch emails.', 'x-message': 'be left out of batch emails' };

/**
 * The JSON Schema of a POST /emails body and of each email of a batch: the check of every
 * request, and its description in /openapi.json. `from` and `subject` may come from a template
 * instead; html or text (not empty) is needed without one, which emailRequestOf checks.
 */
export function emailRequestSchema(options: { batch?: boolean } = {}): JsonSchema {
  const fields: Record<string, JsonSchema> = {
    from: string({ minLength: 1, description: 'The sender: `addr` or `Name <addr>`.' }),
    to: addresses(`The recipients: at least one, at most ${MAX_RECIPIENTS}.`),
    subject: string({ allOf: [worded('\\S', 'not be empty'), worded(NO_LINE_BREAKS, 'not contain line breaks')] }),
    cc: addresses(`At most ${MAX_RECIPIENTS}.`),
    bcc: addresses(`At most ${MAX_RECIPIENTS}.`),
    reply_to: addresses(`At most ${MAX_RECIPIENTS}.`),
    html: string(),
    text: string({ description: 'The plain text part; default: made from the html; "" for none.' }),
    headers: {
      type: 'object',
      description: 'Extra header fields; not those the fields above set (From, To, Subject, Message-ID, …).',
      propertyNames: { pattern: FIELD_NAME, 'x-message': 'have header field names of printable ASCII without spaces or colons' },
      additionalProperties: string(worded(NO_LINE_BREAKS, 'not contain line breaks')),
    },
    tags: array(input({ name: TAG_PART, value: TAG_PART }, ['name', 'value'])),
    scheduled_at: options.batch
      ? NOT_IN_BATCH
      : string({
          maxLength: MAX_SCHEDULED_AT_LENGTH,
          description: 'When to send: ISO 8601, or natural language ("in 1 min", "tomorrow at 9am"); at most 30 days ahead.',
        }),
    attachments: options.batch ? NOT_IN_BATCH : array(ATTACHMENT_SCHEMA, { description: `All of the email at most ${MAX_EMAIL_SIZE} once base64-encoded.` }),
    topic_id: string({ format: 'uuid', description: 'Send only to recipients subscribed to this topic.', 'x-message': 'be the id of one of your topics' }),
    template: input(
      {
        id: string({ description: 'A published template: its id or alias.', ...worded('\\S', 'be a template id or alias') }),
        variables: {
          type: 'object',
          additionalProperties: {
            type: ['string', 'number'],
            maxLength: MAX_STRING_VALUE,
            minimum: -Number.MAX_SAFE_INTEGER,
            maximum: Number.MAX_SAFE_INTEGER,
          },
        },
      },
      ['id'],
      { description: 'A published template gives the content, and `from`, `subject` and `reply_to` where the email leaves them out.' },
    ),
    react: {
      type: 'null',
      description: 'Not taken: the SDK renders `react` to `html` before sending.',
      'x-message': 'be rendered to `html` by the SDK before sending',
    },
  };
  return input(fields, ['to'], {
    description: 'Without a template, `html` or `text` (not both empty) is required.',
    allOf: [
      { description: '`from` and `subject`, or a template that gives them.', anyOf: [{ required: ['from', 'subject'] }, { required: ['template'] }] },
      {
        description: 'With a template, no `html` or `text`.',
        anyOf: [{ properties: { html: NOT_WITH_TEMPLATE, text: NOT_WITH_TEMPLATE } }, { not: { required: ['template'] } }],
      },
    ],
  });
}

const checks: { single?: RequestCheck; batch?: RequestCheck } = {};

/** A body against emailRequestSchema, compiled at its first use: the body without its nulls, or the first failure. */
export function checkEmailBody(raw: unknown, options: { batch?: boolean } = {}): EmailBody {
  const check = options.batch ? (checks.batch ??= requestCheck(emailRequestSchema({ batch: true }))) : (checks.single ??= requestCheck(emailRequestSchema()));
  return check(raw) as EmailBody;
}

/**
 * A payload no route has checked (the ones broadcasts, automations, inboxes and reports build):
 * checked as POST /emails checks its body, then read.
 */
export function parseEmailRequest(raw: unknown, options: { batch?: boolean } = {}): EmailRequest {
  return emailRequestOf(checkEmailBody(raw, options) as SendableBody);
}

/** A checked body as the accept pipeline takes it, with what the schema cannot check. */
export function emailRequestOf(body: SendableBody): EmailRequest {
  const sender = parseMailbox(body.from, 'from');
  const to = addressList(body.to, 'to');
  if (to.length === 0) throw missingField('to');
  const cc = addressList(body.cc, 'cc');
  const bcc = addressList(body.bcc, 'bcc');
  const replyTo = addressList(body.reply_to, 'reply_to');

  const { html, text } = body;
  if (!html && !text) throw validation('Missing `html` or `text` field.');
  if (Buffer.byteLength(html ?? '') + Buffer.byteLength(text ?? '') > MAX_EMAIL_BYTES) {
    throw validation(`The email is larger than the maximum of ${MAX_EMAIL_SIZE}.`);
  }
  for (const name of Object.keys(body.headers ?? {})) {
    if (OWNED_HEADERS.has(name.toLowerCase())) throw validation(`The \`${name}\` header cannot be set in \`headers\`; it is set from the email's fields.`);
  }
  for (const tag of body.tags ?? []) {
    if (!TAG.test(tag.name) || !TAG.test(tag.value)) {
      throw validation('Tags should only contain ASCII letters, numbers, underscores, or dashes, and be at most 256 characters long.');
    }
  }

  return {
    from: body.from.trim(),
    sender,
    to: to.map((m) => m.given),
    toMailboxes: to.map((m) => m.mailbox),
    cc: cc.length ? cc.map((m) => m.given) : null,
    ccMailboxes: cc.map((m) => m.mailbox),
    bcc: bcc.length ? bcc.map((m) => m.given) : null,
    bccMailboxes: bcc.map((m) => m.mailbox),
    replyTo: replyTo.length ? replyTo.map((m) => m.given) : null,
    replyToMailboxes: replyTo.map((m) => m.mailbox),
    subject: body.subject,
    html: html || null,
    text: text === undefined ? (html ? undefined : null) : text === '' ? null : text,
    headers: body.headers && Object.keys(body.headers).length ? body.headers : null,
    tags: body.tags ?? null,
    scheduledAt: body.scheduled_at === undefined ? null : parseScheduledAt(body.scheduled_at),
    attachments: attachmentRequests(body.attachments),
    topicId: body.topic_id?.toLowerCase(),
  };
}

type ParsedAddress = { given: string; mailbox: Mailbox };

function addressList(value: Addresses | undefined, field: string): ParsedAddress[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((item) => ({ given: item.trim(), mailbox: parseMailbox(item, field) }));
}
