// The validate step for the API: one `SendEmailRequest` (resend-compat-notes §2.1) → an
// EmailRequest, or a Resend error. Every string that becomes a header line is checked for
// CR/LF here, so nothing a caller sends can add a header of its own.
import { missingField, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { MAX_EMAIL_BYTES, MAX_EMAIL_SIZE, MAX_RECIPIENTS } from '../api/limits.js';
import { array, input, integer, type JsonSchema, number, SINGLE_LINE_TEXT, string, uuid } from '../api/schema.js';
import { assertSingleLine, rejectUnknown, type Body } from '../api/validate.js';
import { parseMailbox, type Mailbox } from '../addresses/mailbox.js';
import { parseAttachments, type AttachmentRequest } from './attachments.js';
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

// (`template` never gets here: the render step, render-template.ts, replaces it with content.)
const FIELDS = ['from', 'to', 'cc', 'bcc', 'reply_to', 'subject', 'html', 'text', 'headers', 'tags', 'scheduled_at', 'attachments', 'topic_id'];
/** What POST /emails/batch never supports (interface-spec §2.1). */
const NOT_IN_BATCH = ['scheduled_at', 'attachments'];

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
const FIELD_NAME = /^[!-9;-~]{1,100}$/;
const TAG = /^[A-Za-z0-9_-]{1,256}$/;

const mailbox = (description: string) => string({ minLength: 1, description: `${description}: \`addr\` or \`Name <addr>\`.` });
const addresses = (description: string, minItems = 0): JsonSchema => ({
  description,
  oneOf: [mailbox('An address'), array(mailbox('An address'), { minItems, maxItems: MAX_RECIPIENTS })],
});
const tagPart = string({ pattern: TAG.source });
const ATTACHMENT_SCHEMA: JsonSchema = input(
  {
    content: {
      description: 'The file, base64-encoded, or a Node Buffer as JSON.',
      oneOf: [
        string({ contentEncoding: 'base64', minLength: 1 }),
        input({ type: { const: 'Buffer' }, data: array(integer({ minimum: 0, maximum: 255 })) }, ['type', 'data']),
      ],
    },
    path: string({ format: 'uri', description: 'An http(s) URL the file is fetched from (instead of `content`).' }),
    filename: string({ maxLength: 255, pattern: '^[^\\r\\n\\u0000]*$' }),
    content_type: string({ description: 'A media type such as `application/pdf`; default: from the file name.' }),
    content_id: string({ pattern: '^[!-;=?-~]{1,127}$', description: 'Makes it an inline part, referenced from the html as `cid:<content_id>`.' }),
  },
  [],
  { oneOf: [{ required: ['content'] }, { required: ['path'] }] },
);

/**
 * The JSON Schema of what parseEmailRequest accepts (POST /emails, each email of a batch):
 * change the two together. `from` and `subject` may also come from a template; the schema
 * asks for them, as Resend's does.
 */
export function emailRequestSchema(options: { batch?: boolean } = {}): JsonSchema {
  const fields: Record<string, JsonSchema> = {
    from: mailbox('The sender'),
    to: addresses(`The recipients, at most ${MAX_RECIPIENTS}.`, 1),
    subject: string({ pattern: SINGLE_LINE_TEXT }),
    cc: addresses(`At most ${MAX_RECIPIENTS}.`),
    bcc: addresses(`At most ${MAX_RECIPIENTS}.`),
    reply_to: addresses(`At most ${MAX_RECIPIENTS}.`),
    html: string(),
    text: string({ description: 'The plain text part; default: made from the html; "" for none.' }),
    headers: {
      type: 'object',
      description: 'Extra header fields; not those the fields above set (From, To, Subject, Message-ID, …).',
      propertyNames: { pattern: FIELD_NAME.source },
      additionalProperties: string({ pattern: '^[^\\r\\n\\u0000]*$' }),
    },
    tags: array(input({ name: tagPart, value: tagPart }, ['name', 'value'])),
    ...(options.batch
      ? {}
      : {
          scheduled_at: string({
            maxLength: MAX_SCHEDULED_AT_LENGTH,
            description: 'When to send: ISO 8601, or natural language ("in 1 min", "tomorrow at 9am"); at most 30 days ahead.',
          }),
          attachments: array(ATTACHMENT_SCHEMA, { description: `All of the email at most ${MAX_EMAIL_SIZE} once base64-encoded.` }),
        }),
    topic_id: uuid('Send only to recipients subscribed to this topic.'),
    template: input(
      {
        id: string({ minLength: 1, description: 'A published template: its id or alias.' }),
        variables: { type: 'object', additionalProperties: { oneOf: [string(), number()] } },
      },
      ['id'],
    ),
  };
  return input(fields, ['from', 'to', 'subject'], {
    // html or text, or a template instead of both.
    oneOf: [
      {
        anyOf: [
          { required: ['html'], properties: { html: string({ minLength: 1 }) } },
          { required: ['text'], properties: { text: string({ minLength: 1 }) } },
        ],
      },
      { required: ['template'] },
    ],
  });
}

const present = (body: Body, field: string) => body[field] !== undefined && body[field] !== null;

export function parseEmailRequest(raw: unknown, options: { batch?: boolean } = {}): EmailRequest {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw validation(options.batch ? 'Each email in the batch must be a JSON object.' : 'The request body must be a JSON object.');
  }
  const body = raw as Body;
  rejectUnknown(body, [...FIELDS, 'react']);
  for (const field of options.batch ? NOT_IN_BATCH : []) {
    if (present(body, field)) throw validation(`The \`${field}\` field is not supported in batch emails.`);
  }
  if (present(body, 'react')) throw validation('The `react` field must be rendered to `html` by the SDK before sending.');

  const from = requiredText(body, 'from');
  const sender = parseMailbox(from, 'from');
  if (!present(body, 'to')) throw missingField('to');
  const to = addressList(body, 'to');
  if (to.length === 0) throw missingField('to');
  const subject = requiredText(body, 'subject');
  assertSingleLine(subject, 'subject');
  const cc = optionalAddressList(body, 'cc');
  const bcc = optionalAddressList(body, 'bcc');
  const replyTo = optionalAddressList(body, 'reply_to');

  const html = optionalText(body, 'html');
  const text = optionalText(body, 'text');
  if (!html && !text) throw validation('Missing `html` or `text` field.');
  if (Buffer.byteLength(html ?? '') + Buffer.byteLength(text ?? '') > MAX_EMAIL_BYTES) {
    throw validation(`The email is larger than the maximum of ${MAX_EMAIL_SIZE}.`);
  }

  return {
    from: from.trim(),
    sender,
    to: to.map((m) => m.given),
    toMailboxes: to.map((m) => m.mailbox),
    cc: cc === null ? null : cc.map((m) => m.given),
    ccMailboxes: cc ? cc.map((m) => m.mailbox) : [],
    bcc: bcc === null ? null : bcc.map((m) => m.given),
    bccMailboxes: bcc ? bcc.map((m) => m.mailbox) : [],
    replyTo: replyTo === null ? null : replyTo.map((m) => m.given),
    replyToMailboxes: replyTo ? replyTo.map((m) => m.mailbox) : [],
    subject,
    html: html || null,
    text: text === undefined ? (html ? undefined : null) : text === '' ? null : text,
    headers: customHeaders(body),
    tags: tags(body),
    scheduledAt: present(body, 'scheduled_at') ? parseScheduledAt(body.scheduled_at) : null,
    attachments: parseAttachments(body.attachments),
    topicId: present(body, 'topic_id') ? topicId(body.topic_id) : undefined,
  };
}

function topicId(value: unknown): string {
  if (!isUuid(value)) throw validation('The `topic_id` field must be the id of one of your topics.');
  return value.toLowerCase();
}

function requiredText(body: Body, field: string): string {
  if (!present(body, field)) throw missingField(field);
  const value = body[field];
  if (typeof value !== 'string') throw validation(`The \`${field}\` field must be a string.`);
  if (value.trim() === '') throw validation(`The \`${field}\` field must not be empty.`);
  return value;
}

function optionalText(body: Body, field: string): string | undefined {
  if (!present(body, field)) return undefined;
  const value = body[field];
  if (typeof value !== 'string') throw validation(`The \`${field}\` field must be a string.`);
  return value;
}

type ParsedAddress = { given: string; mailbox: Mailbox };

function addressList(body: Body, field: string): ParsedAddress[] {
  const value = body[field];
  const list = Array.isArray(value) ? value : [value];
  if (list.length > MAX_RECIPIENTS) {
    throw validation(`The \`${field}\` field must have at most ${MAX_RECIPIENTS} addresses.`);
  }
  return list.map((item) => {
    if (typeof item !== 'string') throw validation(`The \`${field}\` field must be a string or an array of strings.`);
    return { given: item.trim(), mailbox: parseMailbox(item, field) };
  });
}

function optionalAddressList(body: Body, field: string): ParsedAddress[] | null {
  if (!present(body, field)) return null;
  const list = addressList(body, field);
  return list.length ? list : null;
}

function customHeaders(body: Body): Record<string, string> | null {
  if (!present(body, 'headers')) return null;
  const value = body.headers;
  if (typeof value !== 'object' || Array.isArray(value)) throw validation('The `headers` field must be an object of strings.');
  const headers: Record<string, string> = {};
  for (const [name, headerValue] of Object.entries(value as Body)) {
    if (!FIELD_NAME.test(name)) throw validation(`The header name \`${name.replace(/[\r\n]/g, ' ')}\` is not a valid header field name.`);
    if (OWNED_HEADERS.has(name.toLowerCase())) {
      throw validation(`The \`${name}\` header cannot be set in \`headers\`; it is set from the email's fields.`);
    }
    if (typeof headerValue !== 'string') throw validation(`The \`headers.${name}\` value must be a string.`);
    assertSingleLine(headerValue, `headers.${name}`);
    headers[name] = headerValue;
  }
  return Object.keys(headers).length ? headers : null;
}

function tags(body: Body): { name: string; value: string }[] | null {
  if (!present(body, 'tags')) return null;
  const value = body.tags;
  if (!Array.isArray(value)) throw validation('The `tags` field must be an array of `{name, value}` objects.');
  return value.map((tag, i) => {
    if (tag === null || typeof tag !== 'object' || Array.isArray(tag)) {
      throw validation('The `tags` field must be an array of `{name, value}` objects.');
    }
    rejectUnknown(tag as Body, ['name', 'value'], `tags[${i}].`);
    const { name, value: tagValue } = tag as Body;
    if (name === undefined || name === null) throw missingField(`tags[${i}].name`);
    if (tagValue === undefined || tagValue === null) throw missingField(`tags[${i}].value`);
    for (const part of [name, tagValue]) {
      if (typeof part !== 'string' || !TAG.test(part)) {
        throw validation('Tags should only contain ASCII letters, numbers, underscores, or dashes, and be at most 256 characters long.');
      }
    }
    return { name: name as string, value: tagValue as string };
  });
}
