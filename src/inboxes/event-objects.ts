// The objects inbox.* webhooks embed beside the ids (the SDK's optional `inbox`, `thread`,
// `email` and `draft` of Inbox*EventData, which Resend's webhook reference shows in every
// example): read in the transaction that records the event, so each one is the object as that
// change left it (a deleted inbox or draft as it was just before). Bodies are left out, as the
// SDK's InboxEventEmail and InboxEventDraft declare (Omit<…, 'html' | 'text'>).
import { isoTimestamp } from '../api/format.js';
import type { Queryable } from '../db/database.js';
import { type DraftAttachmentView, draftAttachmentViews } from './draft-attachments.js';
import type { InboxDraftRow, InboxMessageRow } from './find-inbox.js';
import { inboxDetail, readInboxes } from './inbox-view.js';
import { type MessageViewRow, messageView } from './thread-view.js';

/** The SDK's GetInboxResponseSuccess, for inbox.created/updated/deleted. */
export async function eventInbox(q: Queryable, inboxId: string) {
  const [row] = await readInboxes(q, 'i.id = $1', [inboxId]);
  return inboxDetail(row!);
}

/** The SDK's InboxEventEmail: a thread's message without its bodies. */
export function eventEmail(row: MessageViewRow) {
  const { html: _html, text: _text, ...email } = messageView(row);
  return email;
}

export async function eventEmailById(q: Queryable, messageId: string) {
  return eventEmail((await q.one<InboxMessageRow>('SELECT * FROM inbox_messages WHERE id = $1', [messageId]))!);
}

/** The draft fields every view of a draft shares (the API's list and get, the webhooks' draft). */
export function draftCommon(row: InboxDraftRow, attachments: DraftAttachmentView[]) {
  return {
    id: row.id,
    type: row.thread_id ? ('reply' as const) : ('standalone' as const),
    to: row.to_addresses ?? null,
    cc: row.cc,
    bcc: row.bcc,
    subject: row.subject ?? null,
    thread_id: row.thread_id ?? null,
    reply_to_email_id: row.reply_to_email_id ?? null,
    attachments,
  };
}

/** The SDK's InboxEventDraft: a draft without its bodies, with its files. */
export async function eventDraft(q: Queryable, draftId: string) {
  const row = (await q.one<InboxDraftRow>('SELECT * FROM inbox_drafts WHERE id = $1', [draftId]))!;
  const files = await draftAttachmentViews(q, [draftId]);
  return {
    object: 'inbox_draft' as const,
    ...draftCommon(row, files.get(draftId)!),
    email_id: row.email_id ?? null,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}
