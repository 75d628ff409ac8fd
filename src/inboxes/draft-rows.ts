// Writing a draft, for the API's drafts (draft-routes.ts) and the inbox agent's (agent-worker.ts)
// alike: the one INSERT into inbox_drafts, and the inbox.draft.* event with the draft (and its
// thread) embedded, through the one event writer, in the caller's transaction.
import type { Queryable } from '../db/database.js';
import { recordEvents } from '../events/record-events.js';
import { eventDraft } from './event-objects.js';
import { threadSummary } from './thread-view.js';

interface NewDraft {
  id: string;
  inboxId: string;
  /** A reply's thread and the message it answers; both null for a standalone draft. */
  threadId: string | null;
  replyToEmailId: string | null;
  to: string[] | null;
  cc: string[];
  bcc: string[];
  subject: string | null;
  html: string | null;
  text: string | null;
}

export async function insertDraft(q: Queryable, d: NewDraft): Promise<void> {
  await q.query(
    `INSERT INTO inbox_drafts (id, inbox_id, thread_id, reply_to_email_id, to_addresses, cc, bcc, subject, html, text)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [d.id, d.inboxId, d.threadId, d.replyToEmailId, d.to, d.cc, d.bcc, d.subject, d.html, d.text],
  );
}

type DraftEvent = 'inbox.draft.created' | 'inbox.draft.updated' | 'inbox.draft.deleted';

/** A draft event with the draft (and its thread) embedded; a deleted draft's is recorded before the delete. */
export async function draftEvent(
  q: Queryable,
  inbox: { id: string; account_id: string },
  type: DraftEvent,
  draft: { id: string; threadId: string | null },
  source: 'api' | 'agent' = 'api',
): Promise<void> {
  const thread = draft.threadId ? { thread_id: draft.threadId, thread: await threadSummary(q, draft.threadId) } : {};
  const data = { source, inbox_id: inbox.id, draft_id: draft.id, ...thread, draft: await eventDraft(q, draft.id) };
  await recordEvents(q, [{ accountId: inbox.account_id, type, data }]);
}
