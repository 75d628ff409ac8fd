// Assigning a thread to a teammate. The SDK (6.38) declares the webhooks
// (inbox.thread.assigned / unassigned, with assignee_email, assigned_by_email and
// previous_assignee_email) but no way to assign; Resend assigns from its dashboard. Postline
// takes `assignee_email` on PATCH /inboxes/:inbox/threads/:thread (a Postline addition): an
// address, or null for nobody. Any address may be named (a teammate need not have a dashboard
// user); the assigner is the signed-in dashboard user, null for an API key.
import { validation } from '../api/errors.js';
import type { Principal } from '../api/route.js';
import { nullable, string } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import { recordEvents } from '../events/record-events.js';
import { parseMailbox } from '../addresses/mailbox.js';
import { threadSummary } from './thread-view.js';

/** `assignee_email` in PATCH /inboxes/:inbox/threads/:thread's body: its type checked by the schema, its syntax by parseAssignee. */
export const ASSIGNEE_SCHEMA = nullable(
  string({ description: 'Postline: the address of the teammate to assign the thread to; null: nobody.', 'x-message': 'be an email address or null' }),
);

/** The `assignee_email` given (a string once the schema passed it): undefined when absent, null to unassign, else a bare lower-case address. */
export function parseAssignee(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const mailbox = parseMailbox(value, 'assignee_email');
  if (mailbox.name) throw validation('The `assignee_email` field must be a bare email address, without a name.');
  return mailbox.address.toLowerCase();
}

interface Change {
  inbox: { id: string; account_id: string };
  threadId: string;
  previous: string | null;
  assignee: string | null;
  principal: Principal;
}

interface UserEmailRow {
  email: string;
}

/** Stores the assignee and records the event, in the caller's transaction; nothing when unchanged. */
export async function assignThread(q: Queryable, change: Change): Promise<void> {
  const { inbox, threadId, previous, assignee, principal } = change;
  if (previous === assignee) return;
  await q.query('UPDATE inbox_threads SET assignee_email = $2 WHERE id = $1', [threadId, assignee]);
  const source = principal.userId ? ('dashboard' as const) : ('api' as const);
  const base = { source, inbox_id: inbox.id, thread_id: threadId, thread: await threadSummary(q, threadId) };
  if (assignee === null) {
    await recordEvents(q, [{ accountId: inbox.account_id, type: 'inbox.thread.unassigned', data: { ...base, previous_assignee_email: previous! } }]);
    return;
  }
  const user = principal.userId ? await q.one<UserEmailRow>('SELECT email FROM users WHERE id = $1', [principal.userId]) : undefined;
  const data = { ...base, assignee_email: assignee, assigned_by_email: user?.email ?? null, previous_assignee_email: previous };
  await recordEvents(q, [{ accountId: inbox.account_id, type: 'inbox.thread.assigned', data }]);
}
