// The persist-and-enqueue step: the emails, their queue entries (one delivery per unique
// recipient) and their `email.sent` (or `email.scheduled`) events, written with a constant
// number of statements however many emails there are: one, unless some have attachments or
// suppressed recipients (oneStatement()). Runs inside the caller's transaction, or, when it is
// one statement, as its own (group-commit.ts), which is what makes an accepted email durable
// before anyone is told it was accepted.
//
// Coupled with src/delivery/ (which reads the message through email-row/, emails.envelope_from and the
// deliveries rows written here) and with 0001_core.sql / 0002_emails.sql; the 'scheduled'
// rows of scheduled emails with release-scheduled.ts and 0007_scheduling.sql; a broadcast's
// emails (broadcast_id, contact_id, bulk priority) with src/broadcasts/ and 0014_broadcasts.sql.
import type { Queryable } from '../db/database.js';
import { messageColumns, type StoredMessage } from '../email-row/stored-message.js';
import { outboundEvent, recordEventsCtes } from '../events/record-events.js';
import type { EmailRequest } from './email-request.js';
import type { ExclusionOrigin } from './apply-suppressions.js';
import { recordSuppressed } from './apply-suppressions.js';
import { persistAttachments, type StoredAttachment } from './attachment-parts.js';
import { acceptedState } from './schedule.js';
import { enqueueCte, type NewDelivery } from '../queue/enqueue.js';

/** `report`: Postline's own reports (TLS reports, src/tls-reports/). */
export type EmailSource = 'api' | 'smtp' | 'broadcast' | 'automation' | 'report';

/** An email ready to be written: composed, signed, addressed. */
export interface OutgoingEmail {
  id: string;
  accountId: string;
  domainId: string;
  source: EmailSource;
  request: EmailRequest;
  /** The text part actually sent (generated from html unless given or opted out). */
  text: string | null;
  messageId: string;
  envelopeFrom: string;
  /** Unique bare recipients across to, cc and bcc. */
  recipients: { address: string; domain: string }[];
  /** Signed now, signed at delivery (an SMTP submission), or composed at delivery (accept.ts `composeAt`). */
  message: StoredMessage;
  /** Where each attachment sits in the signed message (attachment-parts.ts). */
  attachments?: StoredAttachment[];
  /** Recipients on the account's suppression list (apply-suppressions.ts): never attempted. */
  suppressed?: { address: string; origin: ExclusionOrigin }[];
}

/**
 * The emails' columns, each passed as one array parameter (unnest): the statement's text is
 * the same however many emails it writes, so it is a prepared statement (parsed and planned
 * once per connection: that was a third of PostgreSQL's work per batch). text[] columns travel
 * as array literals inside a text[] (a ragged two-dimensional array cannot be unnested); the
 * messages' bytes as one binary parameter with each email's place in it (packed()), since a
 * bytea[] would travel as hex text.
 */
const EMAIL_COLUMNS: [column: string, type: string, value: (e: OutgoingEmail) => unknown][] = [
  ['id', 'uuid', (e) => e.id],
  ['account_id', 'uuid', (e) => e.accountId],
  ['domain_id', 'uuid', (e) => e.domainId],
  ['source', 'text', (e) => e.source],
  ['from_address', 'text', (e) => e.request.from],
  ['to_addresses', 'text[]', (e) => arrayLiteral(e.request.to)],
  ['cc', 'text[]', (e) => arrayLiteral(e.request.cc)],
  ['bcc', 'text[]', (e) => arrayLiteral(e.request.bcc)],
  ['reply_to', 'text[]', (e) => arrayLiteral(e.request.replyTo)],
  ['subject', 'text', (e) => e.request.subject],
  ['html', 'text', (e) => e.request.html],
  ['text', 'text', (e) => e.text],
  ['headers', 'jsonb', (e) => e.request.headers && JSON.stringify(e.request.headers)],
  ['tags', 'jsonb', (e) => e.request.tags && JSON.stringify(e.request.tags)],
  ['message_id', 'text', (e) => e.messageId],
  ['envelope_from', 'text', (e) => e.envelopeFrom],
  ['scheduled_at', 'timestamptz', (e) => e.request.scheduledAt],
  ['last_event', 'text', (e) => acceptedState(e.request.scheduledAt).lastEvent],
  ['broadcast_id', 'uuid', (e) => e.request.broadcast?.id ?? null],
  ['contact_id', 'uuid', (e) => e.request.broadcast?.contactId ?? null],
  ['template_id', 'uuid', (e) => e.request.templateId ?? null],
  ['topic_id', 'uuid', (e) => e.request.topicId ?? null],
  ['bodies_in_message', 'boolean', (e) => messageColumns(e.message).bodiesInMessage],
];

// The parts of the statement's text that EMAIL_COLUMNS fixes: the same for every call.
const COLUMN_NAMES = EMAIL_COLUMNS.map(([column]) => column).join(', ');
const UNNESTED = EMAIL_COLUMNS.map(([, type], i) => (type.endsWith('[]') ? `$${i + 1}::text[]` : `$${i + 1}::${type}[]`)).join(', ');
const SELECTED = EMAIL_COLUMNS.map(([column, type]) => (type.endsWith('[]') ? `v.${column}::${type}` : `v.${column}`)).join(', ');

/** A PostgreSQL array literal of `items` (quoted, with `"` and `\` escaped); null stays null. */
function arrayLiteral(items: string[] | null): string | null {
  if (!items) return null;
  return `{${items.map((item) => `"${item.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`;
}

/** Byte strings (null for none) as one buffer, and each one's 1-based start and length in it. */
function packed(items: (Buffer | null | undefined)[]): [bytes: Buffer | null, starts: (number | null)[], lengths: (number | null)[]] {
  if (!items.some((b) => b)) return [null, items.map(() => null), items.map(() => null)];
  let next = 1;
  const starts = items.map((b) => {
    if (!b) return null;
    const start = next;
    next += b.length;
    return start;
  });
  return [Buffer.concat(items.filter((b): b is Buffer => !!b)), starts, items.map((b) => (b ? b.length : null))];
}

/** Whether persistAndEnqueue writes `emails` with one statement (which is a transaction by itself). */
export function oneStatement(emails: OutgoingEmail[]): boolean {
  return !emails.some((e) => e.attachments?.length || e.suppressed?.length);
}

export async function persistAndEnqueue(q: Queryable, emails: OutgoingEmail[]): Promise<void> {
  if (emails.length === 0) return;
  const params: unknown[] = EMAIL_COLUMNS.map(([, , value]) => emails.map(value));
  const messages = emails.map((e) => messageColumns(e.message));
  const [mimes, mimeStarts, mimeLengths] = packed(messages.map((m) => m.mime));
  const [unsignedMimes, unsignedStarts, unsignedLengths] = packed(messages.map((m) => m.unsignedMime));
  const bytesAt = params.push(mimes, unsignedMimes, mimeStarts, mimeLengths, unsignedStarts, unsignedLengths) - 5;
  // A scheduled email's deliveries wait as 'scheduled' until their time (schedule.ts).
  const deliveries = emails.flatMap((e): NewDelivery[] => {
    const { deliveryStatus: status, dueAt } = acceptedState(e.request.scheduledAt);
    const priority = e.source === 'broadcast' ? 'bulk' : 'transactional';
    return e.recipients.map((r) => ({ emailId: e.id, accountId: e.accountId, recipient: r.address, domain: r.domain, status, dueAt, priority }));
  });
  const enqueue = enqueueCte('d', deliveries, params);
  const events = emails.map((e) =>
    outboundEvent(
      e.accountId,
      {
        id: e.id,
        from_address: e.request.from,
        subject: e.request.subject,
        message_id: e.messageId,
        tags: e.request.tags,
        broadcast_id: e.request.broadcast?.id,
        template_id: e.request.templateId,
      },
      e.request.to,
      { type: acceptedState(e.request.scheduledAt).event, extra: {} },
    ),
  );
  // One statement for the three tables: the deliveries' foreign key is checked at its end, and
  // the events take the emails' created_at from `e`. Each row is created a microsecond after
  // the previous one, so lists (newest first, by created_at) keep the order in which the emails
  // were submitted.
  const inserted = await q.query<{ id: string; created_at: Date }>(
    `WITH e AS (
       INSERT INTO emails (${COLUMN_NAMES}, mime, unsigned_mime, created_at)
       SELECT ${SELECTED},
              substring($${bytesAt}::bytea FROM v.mime_start FOR v.mime_length),
              substring($${bytesAt + 1}::bytea FROM v.unsigned_start FOR v.unsigned_length),
              now() + interval '1 microsecond' * (v.n - 1)
         FROM unnest(${UNNESTED}, $${bytesAt + 2}::int[], $${bytesAt + 3}::int[], $${bytesAt + 4}::int[], $${bytesAt + 5}::int[]) WITH ORDINALITY
              AS v(${COLUMN_NAMES}, mime_start, mime_length, unsigned_start, unsigned_length, n)
       RETURNING id, created_at, domain_id, broadcast_id
     ), ${enqueue}, ${recordEventsCtes('ev', events, params, 'e')}
     SELECT id, created_at FROM e`,
    params,
    'persist-and-enqueue',
  );
  const createdAt = new Map(inserted.map((row) => [row.id, row.created_at]));
  await persistAttachments(q, emails);
  await recordSuppressed(q, emails, createdAt);
}
