// The schemas of what an inbox sends (replies, forwards, drafts). The fields that become the
// POST /emails fields of the email sent (send-from-inbox.ts) are POST /emails' own schemas
// (emailRequestSchema, ATTACHMENT_SCHEMA), so a reply is checked as the email it becomes; the
// addresses' syntax (mailbox.ts) and the files' content (emails/attachments.ts, whose refusals
// are Resend's `invalid_attachment`) are judged in code, as POST /emails judges them.
import { type JsonSchema, nullable, string } from '../api/schema.js';
import { ATTACHMENT_SCHEMA } from '../emails/attachments.js';
import { emailRequestSchema } from '../emails/email-request.js';

const EMAIL_FIELDS = emailRequestSchema().properties!;

/** The recipients of a forward, and the cc and bcc of a reply or a forward: as on POST /emails, whose check says at least one `to`. */
export const SENT_TO = EMAIL_FIELDS.to!;
export const SENT_ADDRESSES = EMAIL_FIELDS.cc!;
/** A reply's or a forward's own files. */
export const SENT_ATTACHMENTS = EMAIL_FIELDS.attachments!;
/** The caller's custom headers, as on POST /emails; those Postline sets from the message answered are refused in code (send-from-inbox.ts). */
export const HEADERS_SCHEMA: JsonSchema = {
  ...EMAIL_FIELDS.headers!,
  description: 'Extra header fields, as on POST /emails; not In-Reply-To, References or Reply-To, which Postline sets from the message answered.',
};

/** A subject given instead of the one made from the message answered: as on POST /emails. */
export const SUBJECT_SCHEMA = EMAIL_FIELDS.subject!;

/** A draft's file: as on POST /emails, and named. */
const DRAFT_ATTACHMENT_SCHEMA: JsonSchema = {
  ...ATTACHMENT_SCHEMA,
  properties: {
    ...ATTACHMENT_SCHEMA.properties,
    filename: string({ minLength: 1, maxLength: 255, anyOf: [{ pattern: '^[^\\r\\n\\u0000]*$', 'x-message': 'not contain line breaks' }] }),
  },
  required: ['filename'],
};

/** A draft's `to`, `cc` or `bcc`: one address (`addr` or `Name <addr>`) or a list of them; null: none. */
const DRAFT_ADDRESSES: JsonSchema = { type: ['string', 'array', 'null'], items: string(), description: '`addr` or `Name <addr>`, or a list of them.' };

/** A draft's content fields (null clears one). */
export const DRAFT_CONTENT_FIELDS: Record<string, JsonSchema> = {
  to: DRAFT_ADDRESSES,
  cc: DRAFT_ADDRESSES,
  bcc: DRAFT_ADDRESSES,
  subject: nullable(string()),
  text: nullable(string()),
  html: nullable(string()),
  attachments: nullable({
    type: 'array',
    items: DRAFT_ATTACHMENT_SCHEMA,
    description: "The draft's files: given, they replace all of them; null or [] removes them. At most 25 MB in all.",
  }),
};
