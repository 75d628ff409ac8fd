// The apply-suppressions step: recipients on the account's suppression list are not sent to.
// The email is still accepted (and its other recipients sent to); each suppressed recipient's
// queue row is written as 'suppressed', never attempted, and the email gets `email.suppressed`
// (resend-compat-notes §7.2) in the accepting transaction.
//   lookUpSuppressions: the step's one query per request, whatever its size, started before
//     composing so that its round trip overlaps the CPU work;
//   applySuppressions: marks each email's suppressed recipients;
//   recordSuppressed: inside persist-and-enqueue's transaction, only when someone is suppressed.
// A suppressed recipient of a scheduled email is decided at accept time too; the email's
// last_event stays `scheduled` unless nobody is left to send it to.
import type { Queryable } from '../db/database.js';
import { outboundEvent, recordEvents, type NewEvent } from '../events/record-events.js';
import { suppressedAmong } from '../suppressions/suppression-list.js';
import type { SuppressionOrigin } from '../suppressions/suppression-view.js';
import type { EmailRequest } from './email-request.js';
import type { OutgoingEmail } from './persist-and-enqueue.js';
import { suppressAtAccept } from '../queue/transitions.js';

/** Which recipients of `requests` are on the account's list (lower-cased address → origin). */
export function lookUpSuppressions(q: Queryable, accountId: string, requests: EmailRequest[]): Promise<Map<string, SuppressionOrigin>> {
  const addresses = requests.flatMap((r) => [...r.toMailboxes, ...r.ccMailboxes, ...r.bccMailboxes].map((m) => m.address));
  const listed = suppressedAmong(q, accountId, addresses);
  listed.catch(() => {}); // awaited later; a failure then fails the request, never the process
  return listed;
}

/** Marks each email's recipients that are on its account's list. */
export function applySuppressions(emails: OutgoingEmail[], listed: Map<string, SuppressionOrigin>): void {
  if (listed.size === 0) return;
  for (const email of emails) {
    const suppressed = email.recipients.flatMap((r) => {
      const origin = listed.get(r.address.toLowerCase());
      return origin ? [{ address: r.address, origin }] : [];
    });
    if (suppressed.length) email.suppressed = suppressed;
  }
}

/** Why a recipient is not sent to: on the suppression list, or not subscribed to the email's topic (apply-topic.ts). */
export type ExclusionOrigin = SuppressionOrigin | 'unsubscribed';

const MESSAGES: Record<ExclusionOrigin, string> = {
  bounce: "The recipient's address is on the account's suppression list because an earlier email to it bounced.",
  complaint: "The recipient's address is on the account's suppression list because an earlier email to it was marked as spam.",
  manual: "The recipient's address is on the account's suppression list because it was added to the list.",
  unsubscribed: "The recipient is not subscribed to the email's topic.",
};

/** Resend's reasons are previous_bounce and previous_complaint; a manual entry reads as the former. */
const reasonOf = (origin: ExclusionOrigin) => (origin === 'unsubscribed' ? 'unsubscribed' : origin === 'complaint' ? 'previous_complaint' : 'previous_bounce');
const responseOf = (origin: ExclusionOrigin) =>
  origin === 'unsubscribed'
    ? 'suppressed: the recipient is not subscribed to the topic'
    : `suppressed: the address is on the account suppression list (${origin})`;

/** Writes the suppressed recipients of `emails` (queue rows, then events). In the accepting transaction. */
export async function recordSuppressed(q: Queryable, emails: OutgoingEmail[], createdAt: Map<string, Date>): Promise<void> {
  const affected = emails.filter((e) => e.suppressed?.length);
  if (affected.length === 0) return;
  const rows = affected.flatMap((e) => e.suppressed!.map((s) => ({ email: e, ...s })));
  await suppressAtAccept(
    q,
    rows.map((r) => ({ emailId: r.email.id, recipient: r.address, response: responseOf(r.origin) })),
  );
  const events: NewEvent[] = [];
  for (const email of affected) {
    // One event per reason, listing its recipients, as delivery outcomes are grouped.
    for (const origin of new Set(email.suppressed!.map((s) => s.origin))) {
      const to = email.suppressed!.filter((s) => s.origin === origin).map((s) => s.address);
      const r = email.request;
      events.push(
        outboundEvent(
          email.accountId,
          {
            id: email.id,
            created_at: createdAt.get(email.id)!,
            from_address: r.from,
            subject: r.subject,
            message_id: email.messageId,
            tags: r.tags,
            broadcast_id: r.broadcast?.id,
            template_id: r.templateId,
          },
          to,
          {
            type: 'email.suppressed',
            extra: {
              suppressed: {
                type: origin === 'unsubscribed' ? 'Suppressed' : 'OnAccountSuppressionList',
                reason: reasonOf(origin),
                message: MESSAGES[origin],
                diagnosticCode: [],
              },
            },
          },
        ),
      );
    }
  }
  // After the queue rows: a scheduled email keeps `scheduled` while someone is left to send it to (recordEvents).
  await recordEvents(q, events);
}
