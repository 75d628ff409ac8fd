// Reading a broadcast's fields from POST /broadcasts and PATCH /broadcasts/:id
// (resend-compat-notes §2.8). Every value that becomes a header line (from, reply_to,
// subject) is checked for CR/LF here; merge tags are checked when the broadcast is sent
// (merge-tags.ts), since a draft may use a contact property defined later.
import { missingField, notFound, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { MAX_EMAIL_BYTES, MAX_EMAIL_SIZE } from '../api/limits.js';
import { array, boolean, input, type JsonSchema, nullable, SINGLE_LINE_TEXT, string, uuid } from '../api/schema.js';
import { assertSingleLine, objectBody, rejectUnknown, type Body } from '../api/validate.js';
import { assertOwned } from '../audience/contact-store.js';
import type { Queryable } from '../db/database.js';
import { parseMailbox } from '../addresses/mailbox.js';
import { MAX_SCHEDULED_AT_LENGTH } from '../emails/schedule.js';

/** A field left out is undefined; null clears an optional one (PATCH). */
export interface BroadcastInput {
  name?: string | null;
  segmentId?: string;
  topicId?: string | null;
  from?: string;
  subject?: string;
  replyTo?: string[] | null;
  previewText?: string | null;
  html?: string | null;
  text?: string | null;
}

const CONTENT_FIELDS = ['name', 'segment_id', 'audience_id', 'from', 'subject', 'reply_to', 'preview_text', 'html', 'text', 'topic_id'];
export const CREATE_FIELDS = [...CONTENT_FIELDS, 'send', 'scheduled_at', 'react'];
export const UPDATE_FIELDS = [...CONTENT_FIELDS, 'react'];

const MAX_NAME = 256;
const MAX_SUBJECT = 998; // RFC 5322 §2.1.1 line limit
const MAX_PREVIEW = 500;

const mailbox = string({ pattern: '\\S', description: '`addr` or `Name <addr>`.' });
const CONTENT_SCHEMAS: Record<string, JsonSchema> = {
  name: nullable(string({ maxLength: MAX_NAME })),
  segment_id: uuid('The segment it goes to.'),
  audience_id: uuid('Deprecated: as `segment_id`.'),
  from: mailbox,
  subject: string({ maxLength: MAX_SUBJECT, pattern: SINGLE_LINE_TEXT }),
  reply_to: nullable({ oneOf: [mailbox, array(mailbox, { maxItems: 50 })] }),
  preview_text: nullable(string({ maxLength: MAX_PREVIEW, pattern: '^[^\\r\\n\\u0000]*$' })),
  html: nullable(string({ description: 'May hold merge tags: `{{{FIRST_NAME|there}}}`, contact properties, `{{{RESEND_UNSUBSCRIBE_URL}}}`.' })),
  text: nullable(string()),
  topic_id: nullable(uuid('Send only to the contacts subscribed to this topic.')),
};
/** The bodies of POST /broadcasts and PATCH /broadcasts/:id as parseBroadcastInput reads them, for the routes' docs. */
export const CREATE_BROADCAST_SCHEMA = input(
  {
    ...CONTENT_SCHEMAS,
    send: boolean({ default: false, description: 'Send it now (or at `scheduled_at`) instead of keeping a draft.' }),
    scheduled_at: string({ maxLength: MAX_SCHEDULED_AT_LENGTH, description: 'With `send: true`: when, as ISO 8601 or natural language ("in 1 hour").' }),
  },
  ['from', 'subject'],
  { anyOf: [{ required: ['segment_id'] }, { required: ['audience_id'] }], dependentRequired: { scheduled_at: ['send'] } },
);
export const UPDATE_BROADCAST_SCHEMA = input(CONTENT_SCHEMAS);

const given = (body: Body, field: string) => body[field] !== undefined;

export function parseBroadcastBody(raw: unknown, allowed: string[]): Body {
  const body = objectBody(raw);
  rejectUnknown(body, allowed);
  if (given(body, 'react') && body.react !== null) {
    throw validation('The `react` field must be rendered to `html` by the SDK before sending.');
  }
  return body;
}

/** The content fields of `body`; `required` (create) insists on from, subject and a segment. */
export function parseBroadcastInput(body: Body, required: boolean): BroadcastInput {
  const input: BroadcastInput = {};
  const segmentId = segment(body);
  if (segmentId !== undefined) input.segmentId = segmentId;
  else if (required) throw missingField('segment_id');

  if (given(body, 'from')) input.from = sender(body.from);
  else if (required) throw missingField('from');
  if (given(body, 'subject')) input.subject = subject(body.subject);
  else if (required) throw missingField('subject');

  if (given(body, 'name')) input.name = optionalText(body, 'name', MAX_NAME);
  if (given(body, 'preview_text')) {
    input.previewText = optionalText(body, 'preview_text', MAX_PREVIEW);
    if (input.previewText) assertSingleLine(input.previewText, 'preview_text');
  }
  if (given(body, 'html')) input.html = optionalText(body, 'html');
  if (given(body, 'text')) input.text = optionalText(body, 'text');
  if (Buffer.byteLength(input.html ?? '') + Buffer.byteLength(input.text ?? '') > MAX_EMAIL_BYTES) {
    throw validation(`The broadcast is larger than the maximum of ${MAX_EMAIL_SIZE}.`);
  }
  if (given(body, 'reply_to')) input.replyTo = replyTo(body.reply_to);
  if (given(body, 'topic_id')) input.topicId = topic(body.topic_id);
  return input;
}

/** The segment and topic must be the caller's (404 otherwise, as any other id of theirs). */
export async function checkAudience(q: Queryable, accountId: string, input: Pick<BroadcastInput, 'segmentId' | 'topicId'>): Promise<void> {
  if (input.segmentId !== undefined) await assertOwned(q, accountId, 'segments', [input.segmentId], 'Segment');
  if (input.topicId) await assertOwned(q, accountId, 'topics', [input.topicId], 'Topic');
}

/** `segment_id`, or its deprecated alias `audience_id`; both given must agree. */
function segment(body: Body): string | undefined {
  const ids = ['segment_id', 'audience_id'].filter((f) => body[f] !== undefined && body[f] !== null);
  if (ids.length === 0) {
    if (body.segment_id === null || body.audience_id === null) throw validation('A broadcast must have a `segment_id`.');
    return undefined;
  }
  const values = ids.map((f) => {
    const value = body[f];
    if (typeof value !== 'string') throw validation(`The \`${f}\` field must be a string.`);
    if (!isUuid(value)) throw notFound('Segment');
    return value.toLowerCase();
  });
  if (values.length === 2 && values[0] !== values[1]) {
    throw validation('The `segment_id` and `audience_id` fields name different segments; send only `segment_id`.');
  }
  return values[0];
}

function sender(value: unknown): string {
  if (value === null) throw validation('The `from` field cannot be cleared.');
  if (typeof value !== 'string') throw validation('The `from` field must be a string.');
  if (value.trim() === '') throw validation('The `from` field must not be empty.');
  parseMailbox(value, 'from');
  return value.trim();
}

function subject(value: unknown): string {
  if (value === null) throw validation('The `subject` field cannot be cleared.');
  if (typeof value !== 'string') throw validation('The `subject` field must be a string.');
  if (value.trim() === '') throw validation('The `subject` field must not be empty.');
  if (value.length > MAX_SUBJECT) throw validation(`The \`subject\` field must be at most ${MAX_SUBJECT} characters.`);
  assertSingleLine(value, 'subject');
  return value;
}

function optionalText(body: Body, field: string, max?: number): string | null {
  const value = body[field];
  if (value === null) return null;
  if (typeof value !== 'string') throw validation(`The \`${field}\` field must be a string.`);
  if (max !== undefined && value.length > max) throw validation(`The \`${field}\` field must be at most ${max} characters.`);
  return value;
}

function replyTo(value: unknown): string[] | null {
  if (value === null) return null;
  const list = Array.isArray(value) ? value : [value];
  if (list.length > 50) throw validation('The `reply_to` field must have at most 50 addresses.');
  const addresses = list.map((item) => {
    if (typeof item !== 'string') throw validation('The `reply_to` field must be a string or an array of strings.');
    parseMailbox(item, 'reply_to');
    return item.trim();
  });
  return addresses.length ? addresses : null;
}

function topic(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') throw validation('The `topic_id` field must be a string.');
  if (!isUuid(value)) throw notFound('Topic');
  return value.toLowerCase();
}
