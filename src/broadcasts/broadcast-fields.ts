// The bodies of POST /broadcasts and PATCH /broadcasts/:id (resend-compat-notes §2.8): their
// schemas, which check them before the handlers run (request-schema.ts), and what the handlers
// make of a checked body. Every value that becomes a header line (from, reply_to, subject) is
// kept to one line by the schema or by address parsing; merge tags are checked when the
// broadcast is sent (merge-tags.ts), since a draft may use a contact property defined later.
import { notFound, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { MAX_EMAIL_BYTES, MAX_EMAIL_SIZE } from '../api/limits.js';
import { boolean, input, type JsonSchema, nullable, SINGLE_LINE_TEXT, string } from '../api/schema.js';
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

/** A body of POST /broadcasts or PATCH /broadcasts/:id once it passed its schema; null clears an optional field. */
export interface BroadcastBody {
  name?: string | null;
  segment_id?: string;
  audience_id?: string;
  from?: string;
  subject?: string;
  reply_to?: string | string[] | null;
  preview_text?: string | null;
  html?: string | null;
  text?: string | null;
  topic_id?: string | null;
  /** Only null: the SDK renders `react` to `html`. */
  react?: null;
  send?: boolean;
  scheduled_at?: string;
}

const MAX_NAME = 256;
const MAX_SUBJECT = 998; // RFC 5322 §2.1.1 line limit
const MAX_PREVIEW = 500;
const MAX_REPLY_TO = 50;

/** `pattern`, refused in its own words while the field's type and length keep theirs. */
const worded = (pattern: string, message: string): Pick<JsonSchema, 'anyOf'> => ({ anyOf: [{ pattern, 'x-message': message }] });
/**
 * A field PATCH may change but not clear: its null is kept (not read as left out,
 * request-schema.ts) and refused.
 */
const notClearable = (schema: JsonSchema): JsonSchema => ({
  anyOf: [schema, { type: 'null' }],
  not: { type: 'null' },
  'x-message': 'keep a value (it cannot be cleared)',
});

const MAILBOX = string({ minLength: 1, description: '`addr` or `Name <addr>`.' });
/** An id of the caller's; any other string, a malformed one included, is 404 as an unknown id is (checkAudience). */
const ownId = (description: string) => string({ description: `${description} Another account's, or no id at all, is 404.` });
const SEGMENT_ID = ownId('The segment it goes to.');
const AUDIENCE_ID = ownId('Deprecated: as `segment_id`.');
const SUBJECT = string({ maxLength: MAX_SUBJECT, ...worded(SINGLE_LINE_TEXT, 'not be empty or contain line breaks') });

/** The content fields; PATCH may clear the optional ones (null) but not the sender, subject or segment. */
function contentSchemas(patch: boolean): Record<string, JsonSchema> {
  const required = (schema: JsonSchema) => (patch ? notClearable(schema) : schema);
  return {
    name: nullable(string({ maxLength: MAX_NAME })),
    segment_id: required(SEGMENT_ID),
    audience_id: required(AUDIENCE_ID),
    from: required(MAILBOX),
    subject: required(SUBJECT),
    reply_to: {
      type: ['string', 'array', 'null'],
      minLength: 1,
      items: MAILBOX,
      maxItems: MAX_REPLY_TO,
      description: 'An address or a list of them (`addr` or `Name <addr>`).',
    },
    preview_text: nullable(string({ maxLength: MAX_PREVIEW, ...worded('^[^\\r\\n\\u0000]*$', 'not contain line breaks') })),
    html: nullable(string({ description: 'May hold merge tags: `{{{FIRST_NAME|there}}}`, contact properties, `{{{RESEND_UNSUBSCRIBE_URL}}}`.' })),
    text: nullable(string()),
    topic_id: nullable(ownId('Send only to the contacts subscribed to this topic.')),
    react: {
      type: 'null',
      description: 'Not taken: the SDK renders `react` to `html` before sending.',
      'x-message': 'be rendered to `html` by the SDK before sending',
    },
  };
}
/** The bodies of POST /broadcasts and PATCH /broadcasts/:id: their check (request-schema.ts) and docs. */
export const CREATE_BROADCAST_SCHEMA = input(
  {
    ...contentSchemas(false),
    send: boolean({ default: false, description: 'Send it now (or at `scheduled_at`) instead of keeping a draft.' }),
    scheduled_at: string({
      maxLength: MAX_SCHEDULED_AT_LENGTH,
      description: 'Only with `send: true`: when, as ISO 8601 or natural language ("in 1 hour").',
    }),
  },
  ['from', 'subject'],
  { anyOf: [{ required: ['segment_id'] }, { required: ['audience_id'] }] },
);
export const UPDATE_BROADCAST_SCHEMA = input(contentSchemas(true));

/** The content fields of a checked body, segment and topic ids lower-cased, addresses parsed. */
export function broadcastInput(body: BroadcastBody): BroadcastInput {
  const input: BroadcastInput = {};
  const segmentId = segment(body);
  if (segmentId !== undefined) input.segmentId = segmentId;
  if (body.from !== undefined) {
    parseMailbox(body.from, 'from');
    input.from = body.from.trim();
  }
  if (body.subject !== undefined) input.subject = body.subject;
  if (body.name !== undefined) input.name = body.name;
  if (body.preview_text !== undefined) input.previewText = body.preview_text;
  if (body.html !== undefined) input.html = body.html;
  if (body.text !== undefined) input.text = body.text;
  if (Buffer.byteLength(input.html ?? '') + Buffer.byteLength(input.text ?? '') > MAX_EMAIL_BYTES) {
    throw validation(`The broadcast is larger than the maximum of ${MAX_EMAIL_SIZE}.`);
  }
  if (body.reply_to !== undefined) input.replyTo = replyTo(body.reply_to);
  if (body.topic_id !== undefined) input.topicId = topic(body.topic_id);
  return input;
}

/** The segment and topic must be the caller's (404 otherwise, as any other id of theirs). */
export async function checkAudience(q: Queryable, accountId: string, input: Pick<BroadcastInput, 'segmentId' | 'topicId'>): Promise<void> {
  if (input.segmentId !== undefined) await assertOwned(q, accountId, 'segments', [input.segmentId], 'Segment');
  if (input.topicId) await assertOwned(q, accountId, 'topics', [input.topicId], 'Topic');
}

/** `segment_id`, or its deprecated alias `audience_id`; both given must agree. */
function segment(body: BroadcastBody): string | undefined {
  const ids = [body.segment_id, body.audience_id]
    .filter((id) => id !== undefined)
    .map((id) => {
      if (!isUuid(id)) throw notFound('Segment');
      return id.toLowerCase();
    });
  if (ids.length === 2 && ids[0] !== ids[1]) {
    throw validation('The `segment_id` and `audience_id` fields name different segments; send only `segment_id`.');
  }
  return ids[0];
}

function replyTo(value: string | string[] | null): string[] | null {
  if (value === null) return null;
  const addresses = (Array.isArray(value) ? value : [value]).map((item) => {
    parseMailbox(item, 'reply_to');
    return item.trim();
  });
  return addresses.length ? addresses : null;
}

function topic(value: string | null): string | null {
  if (value === null) return null;
  if (!isUuid(value)) throw notFound('Topic');
  return value.toLowerCase();
}
