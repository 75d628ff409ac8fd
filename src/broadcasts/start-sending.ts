// Sending a broadcast (POST /broadcasts/:id/send, or create with send: true): checked now, so
// that a broadcast that cannot go out is refused to the caller instead of failing later in the
// worker, then marked `scheduled` (with a time) or `sending` (due at once). The fan-out
// (fan-out.ts) takes it from there.
//
// Checked: content (html or text), the segment and topic still exist, every merge tag is known
// (merge-tags.ts), and the sender's domain is verified and allowed for the caller's key.
import { missingField } from '../api/errors.js';
import type { Principal } from '../api/route.js';
import { assertOwned } from '../audience/contact-store.js';
import type { Queryable } from '../db/database.js';
import { resolveSenderDomains, type SandboxSending } from '../emails/sender-domain.js';
import { parseMailbox } from '../addresses/mailbox.js';
import type { BroadcastRow } from './broadcast-view.js';
import { checkMergeTags } from './merge-tags.js';

export async function assertSendable(q: Queryable, principal: Principal, row: BroadcastRow, sandbox?: SandboxSending): Promise<void> {
  if (!row.html && !row.text) throw missingField('html` or `text');
  if (!row.segment_id) throw missingField('segment_id');
  await assertOwned(q, principal.accountId, 'segments', [row.segment_id], 'Segment');
  if (row.topic_id) await assertOwned(q, principal.accountId, 'topics', [row.topic_id], 'Topic');
  // from_address and subject are nullable columns, but every broadcast has both: POST requires them, PATCH cannot clear them.
  await checkMergeTags(q, principal.accountId, { subject: row.subject!, html: row.html, text: row.text, previewText: row.preview_text });
  const sender = parseMailbox(row.from_address!, 'from');
  const check = await resolveSenderDomains(q, principal, [sender.domain], sandbox);
  const domain = check(sender.domain);
  if (domain instanceof Error) throw domain;
}

/** Checks the broadcast and makes it due at `scheduledAt` (null: at once). In the caller's transaction. */
export async function startSending(q: Queryable, principal: Principal, row: BroadcastRow, scheduledAt: Date | null, sandbox?: SandboxSending): Promise<void> {
  await assertSendable(q, principal, row, sandbox);
  await q.query(
    `UPDATE broadcasts SET status = $3, scheduled_at = $4, lease_until = NULL, updated_at = now()
      WHERE id = $1 AND account_id = $2`,
    [row.id, principal.accountId, scheduledAt ? 'scheduled' : 'sending', scheduledAt],
  );
}
