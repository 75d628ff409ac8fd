// The topic step: an email sent with `topic_id` goes only to the recipients subscribed to that
// topic (src/audience/topic-recipients.ts decides who). A topic that is not the account's
// refuses the email (404, per email in a permissive batch). Recipients left out are handled as
// those on the suppression list are (apply-suppressions.ts): their queue rows are written as
// 'suppressed', never attempted, and the email gets `email.suppressed`.
// One query for the whole submission, only when one of its emails names a topic.
import { notFound } from '../api/errors.js';
import { optedOutOfTopics } from '../audience/topic-recipients.js';
import type { Queryable } from '../db/database.js';
import type { EmailRequest } from './email-request.js';
import type { OutgoingEmail } from './persist-and-enqueue.js';

const recipientsOf = (r: EmailRequest) => [...r.toMailboxes, ...r.ccMailboxes, ...r.bccMailboxes].map((m) => m.address);

/** For each email with a topic: the addresses it must not go to; an error for a foreign topic. */
export async function lookUpTopicOptOuts(
  q: Queryable,
  accountId: string,
  candidates: { request?: EmailRequest; error?: unknown; topicOptOuts?: Set<string> }[],
): Promise<void> {
  const scoped = candidates.filter((c) => c.request?.topicId);
  if (scoped.length === 0) return;
  const optOuts = await optedOutOfTopics(
    q,
    accountId,
    scoped.map((c) => ({ topicId: c.request!.topicId!, addresses: recipientsOf(c.request!) })),
  );
  scoped.forEach((c, i) => {
    const out = optOuts[i];
    if (out === undefined) c.error = notFound('Topic');
    else c.topicOptOuts = out;
  });
}

/** Marks the recipients of each email that its topic leaves out (after the suppression list's). */
export function applyTopicOptOuts(emails: OutgoingEmail[], optOuts: (Set<string> | undefined)[]): void {
  emails.forEach((email, i) => {
    const out = optOuts[i];
    if (!out?.size) return;
    const already = new Set((email.suppressed ?? []).map((s) => s.address.toLowerCase()));
    const added = email.recipients
      .filter((r) => out.has(r.address.toLowerCase()) && !already.has(r.address.toLowerCase()))
      .map((r) => ({ address: r.address, origin: 'unsubscribed' as const }));
    if (added.length) email.suppressed = [...(email.suppressed ?? []), ...added];
  });
}
