// The objects inbox.* webhooks embed beside the ids (the SDK's optional `inbox`, `thread`,
// `email` and `draft` of Inbox*EventData, which Resend's webhook reference shows in every
// example): read in the transaction that records the event, so each one is the object as that
// change left it (a deleted inbox or draft as it was just before). Bodies are left out, as the
// SDK's InboxEventEmail and InboxEventDraft declare (Omit<…, 'html' | 'text'>).
import { isoTimestamp } from '../api/format.js';
import type { Queryable, Row } from '../db/database.js';
import { type DraftAttachmentView, draftAttachmentViews } from './draft-attachments.js';
import { inboxDetail, readInboxes } from './inbox-view.js';
import { messageView } from './thread-view.js';

/** The SDK's GetInboxResponseSuccess, for inbox.created/updated/deleted. */
export async function eventInbox(q: Queryable, inboxId: string) {
  const [row] = await readInboxes(q, 'i.id = $1', [inboxId]);
  return inboxDetail(row!);
}

/** The SDK's InboxEventEmail: a thread's message without its bodies. */
export function eventEmail(row: Row) {
  const { html: _html, text: _text, ...email } = messageView(row);
  return email;
}

export async function eventEmailById(q: Queryable, messageId: string) {
  return eventEmail((await q.one('SELECT * FROM inbox_messages WHERE id = $1', [messageId]))!);
}

/** The draft fields every view of a draft shares (the API's list and get, the webhooks' draft). */
export function draftCommon(row: Row, attachments: DraftAttachmentView[]) {
  return {
    id: row.id as string,
    type: row.thread_id ? ('reply' as const) : ('standalone' as const),
    to: (row.to_addresses as string[] | null) ?? null,
    cc: row.cc as string[],
    bcc: row.bcc as string[],
    subject: (row.subject as string | null) ?? null,
    thread_id: (row.thread_id as string | null) ?? null,
    reply_to_email_id: (row.reply_to_email_id as string | null) ?? null,
    attachments,
  };
}

/** The SDK's InboxEventDraft: a draft without its bodies, with its files. */
export async function eventDraft(q: Queryable, draftId: string) {
  const row = (await q.one('SELECT * FROM inbox_drafts WHERE id = $1', [draftId])) as Row;
  const files = await draftAttachmentViews(q, [draftId]);
  return {
    object: 'inbox_draft' as const,
    ...draftCommon(row, files.get(draftId)!),
    email_id: (row.email_id as string | null) ?? null,
    created_at: isoTimestamp(row.created_at as Date),
    updated_at: isoTimestamp(row.updated_at as Date),
  };
}
