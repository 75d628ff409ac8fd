// The persist-and-enqueue step: the emails, their queue entries (one delivery per unique
// recipient) and their `email.sent` (or `email.scheduled`) events, written with a constant
// number of statements however many emails there are. Runs inside the caller's transaction,
// which is what makes an accepted email durable before anyone is told it was accepted.
//
// Coupled with src/delivery/ (which reads emails.mime, emails.envelope_from and the
// deliveries rows written here) and with 0001_core.sql / 0002_emails.sql; the 'scheduled'
// rows of scheduled emails with release-scheduled.ts and 0007_scheduling.sql; a broadcast's
// emails (broadcast_id, contact_id, bulk priority) with src/broadcasts/ and 0014_broadcasts.sql.
import type { Queryable } from '../db/database.js';
import { emailEventData, recordEvents } from '../events/record-events.js';
import type { EmailRequest } from './email-request.js';
import type { ExclusionOrigin } from './apply-suppressions.js';
import { recordSuppressed } from './apply-suppressions.js';
import { persistAttachments, type StoredAttachment } from './attachment-parts.js';
import { acceptedState } from './schedule.js';

export type EmailSource = 'api' | 'smtp' | 'broadcast' | 'automation';

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
  /** null: composed at delivery (accept.ts `composeAt`, compose-deferred.ts). */
  mime: Buffer | null;
  /** Where each attachment sits in `mime` (attachment-parts.ts). */
  attachments?: StoredAttachment[];
  /** Recipients on the account's suppression list (apply-suppressions.ts): never attempted. */
  suppressed?: { address: string; origin: ExclusionOrigin }[];
}

const EMAIL_COLUMNS = [
  'id', 'account_id', 'domain_id', 'source', 'from_address', 'to_addresses', 'cc', 'bcc', 'reply_to', 'subject',
  'html', 'text', 'headers', 'tags', 'message_id', 'mime', 'envelope_from', 'scheduled_at', 'last_event',
  'broadcast_id', 'contact_id', 'template_id', 'topic_id',
];

/** Queue priority (0014_broadcasts.sql): the delivery claim takes transactional rows first. */
const TRANSACTIONAL = 0;
const BULK = 1;
const priorityOf = (e: OutgoingEmail) => (e.source === 'broadcast' ? BULK : TRANSACTIONAL);

function emailValues(e: OutgoingEmail): unknown[] {
  const r = e.request;
  return [
    e.id, e.accountId, e.domainId, e.source, r.from, r.to, r.cc, r.bcc, r.replyTo, r.subject,
    r.html, e.text, r.headers && JSON.stringify(r.headers), r.tags && JSON.stringify(r.tags), e.messageId, e.mime, e.envelopeFrom,
    r.scheduledAt, acceptedState(r.scheduledAt).lastEvent, r.broadcast?.id ?? null, r.broadcast?.contactId ?? null, r.templateId ?? null, r.topicId ?? null,
  ];
}

export async function persistAndEnqueue(q: Queryable, emails: OutgoingEmail[]): Promise<void> {
  if (emails.length === 0) return;
  const params: unknown[] = [];
  // Each row is created a microsecond after the previous one, so lists (newest first, by
  // created_at) keep the order in which the emails were submitted.
  const rows = emails.map((email, i) => {
    const placeholders = emailValues(email).map((value) => `$${params.push(value)}`);
    return `(${placeholders.join(',')}, now() + interval '1 microsecond' * ${i})`;
  });
  // A scheduled email's deliveries wait as 'scheduled' until their time (schedule.ts).
  const deliveries = emails.flatMap((e) => {
    const { deliveryStatus, dueAt } = acceptedState(e.request.scheduledAt);
    return e.recipients.map((r) => [e.id, e.accountId, r.address, r.domain, deliveryStatus, dueAt, priorityOf(e)]);
  });
  const column = (k: number) => deliveries.map((d) => d[k]);
  const base = params.length;
  params.push(column(0), column(1), column(2), column(3), column(4), column(5), column(6));
  // One statement for both tables: the deliveries' foreign key is checked at its end.
  const inserted = await q.query<{ id: string; created_at: Date }>(
    `WITH e AS (
       INSERT INTO emails (${EMAIL_COLUMNS.join(', ')}, created_at)
       VALUES ${rows.join(',\n')}
       RETURNING id, created_at
     ), d AS (
       INSERT INTO deliveries (email_id, account_id, recipient, domain, status, next_attempt_at, priority)
       SELECT v.email_id, v.account_id, v.recipient, v.domain, v.status, COALESCE(v.due, now()), v.priority
         FROM unnest($${base + 1}::uuid[], $${base + 2}::uuid[], $${base + 3}::text[], $${base + 4}::text[],
                     $${base + 5}::text[], $${base + 6}::timestamptz[], $${base + 7}::smallint[])
              AS v(email_id, account_id, recipient, domain, status, due, priority)
     )
     SELECT id, created_at FROM e`,
    params,
  );
  const createdAt = new Map(inserted.map((row) => [row.id, row.created_at]));
  await recordEvents(
    q,
    emails.map((e) => ({
      accountId: e.accountId,
      type: acceptedState(e.request.scheduledAt).event,
      emailId: e.id,
      data: emailEventData(
        {
          id: e.id,
          created_at: createdAt.get(e.id)!,
          from_address: e.request.from,
          subject: e.request.subject,
          message_id: e.messageId,
          tags: e.request.tags,
          broadcast_id: e.request.broadcast?.id,
          template_id: e.request.templateId,
        },
        e.request.to,
      ),
    })),
  );
  await persistAttachments(q, emails);
  await recordSuppressed(q, emails, createdAt);
}
