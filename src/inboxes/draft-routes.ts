// /inboxes/:inbox/drafts: drafts, standalone or a reply to one message of a thread; sending
// one goes through the accept pipeline (send-from-inbox.ts) with the draft's files
// (draft-attachments.ts) and keeps the draft, read-only, with the email's id.
import crypto from 'node:crypto';
import { missingField, validation } from '../api/errors.js';
import { isoTimestamp } from '../api/format.js';
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { array, constant, deletedObject, input, integer, isoTime, nullable, object, objectId, oneOfValues, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import type { AcceptDeps } from '../emails/accept.js';
import type { AttachmentBody } from '../emails/attachments.js';
import { parseMailbox } from '../addresses/mailbox.js';
import { draftCommon, eventDraft, eventEmailById } from './event-objects.js';
import { findInbox, findInInbox, findThreadMessage, type InboxDraftRow } from './find-inbox.js';
import { threadSummary } from './thread-view.js';
import { draftEvent, insertDraft } from './draft-rows.js';
import { INBOX_PARAM } from './inbox-routes.js';
import { answerReferences, sendFromInbox } from './send-from-inbox.js';
import { DRAFT_CONTENT_FIELDS, HEADERS_SCHEMA } from './outgoing-fields.js';
import {
  type DraftFile,
  draftAttachmentViews,
  draftAttachmentsToSend,
  loadDraftAttachments,
  parseDraftAttachments,
  storeDraftAttachments,
} from './draft-attachments.js';

const DRAFT_PARAMS = { ...INBOX_PARAM, draft: uuid('The draft id.') };
const CONTENT = ['to', 'cc', 'bcc', 'subject', 'text', 'html', 'attachments'] as const;
const MAX_SNIPPET = 200;
const AT_LEAST_ONE = `Provide at least one of ${CONTENT.map((f) => `\`${f}\``).join(', ')}.`;
const CREATE_DRAFT_SCHEMA = input(
  {
    ...DRAFT_CONTENT_FIELDS,
    thread_id: uuid('A reply: the thread, with `reply_to_email_id`.'),
    reply_to_email_id: uuid('A reply: the message of the thread it answers, with `thread_id`.'),
  },
  [],
  { description: `${AT_LEAST_ONE} A reply gives both \`thread_id\` and \`reply_to_email_id\`, a standalone draft neither.` },
);
const UPDATE_DRAFT_SCHEMA = input(DRAFT_CONTENT_FIELDS, [], { description: `${AT_LEAST_ONE} A field left out is kept; null clears it.` });
const ATTACHMENT_VIEW = object({ id: uuid(), filename: string(), content_type: string(), size: integer() });
const COMMON = {
  id: uuid(),
  type: oneOfValues(['standalone', 'reply']),
  to: nullable(array(string())),
  cc: array(string()),
  bcc: array(string()),
  subject: nullable(string()),
  thread_id: nullable(uuid()),
  reply_to_email_id: nullable(uuid()),
  attachments: array(ATTACHMENT_VIEW),
};
const DRAFT_SCHEMA = object({
  object: constant('inbox_draft'),
  ...COMMON,
  html: nullable(string()),
  text: nullable(string()),
  email_id: nullable(uuid()),
  created_at: isoTime(),
  updated_at: isoTime(),
});
const DRAFT_ITEM_SCHEMA = object({ ...COMMON, snippet: nullable(string()), updated_at: isoTime() });

/** The body of POST and PATCH /inboxes/:inbox/drafts once it passed its schema; null clears a field. */
interface DraftBody {
  to?: string | string[] | null;
  cc?: string | string[] | null;
  bcc?: string | string[] | null;
  subject?: string | null;
  text?: string | null;
  html?: string | null;
  attachments?: AttachmentBody[] | null;
  thread_id?: string;
  reply_to_email_id?: string;
}

type Content = Partial<Record<'to' | 'cc' | 'bcc', string[] | null> & Record<'subject' | 'text' | 'html', string | null>>;

/** The content fields given (null clears one), each address judged (mailbox.ts); throws when none is given. */
function content(body: DraftBody): Content {
  // At least one: in code, so that a misspelt field is refused as unknown rather than as this.
  if (!CONTENT.some((f) => body[f] !== undefined)) throw validation(AT_LEAST_ONE);
  const out: Content = {};
  for (const field of ['to', 'cc', 'bcc'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    const list = value === null ? null : typeof value === 'string' ? [value] : value;
    for (const a of list ?? []) parseMailbox(a, field);
    out[field] = list;
  }
  for (const field of ['subject', 'text', 'html'] as const) {
    if (body[field] !== undefined) out[field] = body[field];
  }
  return out;
}

function snippet(row: InboxDraftRow): string | null {
  const text = row.text ?? (row.html ?? '').replace(/<[^>]*>/g, ' ');
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat === '' ? null : flat.slice(0, MAX_SNIPPET);
}

export function draftRoutes(db: Db, accept: AcceptDeps): Route[] {
  const find = async (accountId: string, params: Record<string, string>) => {
    const inbox = await findInbox(db, accountId, params.inbox!);
    return { inbox, draft: await findInInbox(db, 'inbox_drafts', inbox.id, params.draft!, 'Draft') };
  };
  return [
    {
      method: 'GET',
      url: '/inboxes/:inbox/drafts',
      doc: { ...listDoc('List the drafts not yet sent', DRAFT_ITEM_SCHEMA), params: INBOX_PARAM },
      async handler({ principal, params, query }) {
        const page = parsePage(query);
        const inbox = await findInbox(db, principal.accountId, params.inbox!);
        const { rows, hasMore } = await listPage<InboxDraftRow>(db, {
          table: 'inbox_drafts',
          columns: '*',
          where: 'inbox_id = $1 AND email_id IS NULL',
          params: [inbox.id],
          page,
        });
        const files = await draftAttachmentViews(
          db,
          rows.map((r) => r.id),
        );
        return {
          body: envelope(
            rows.map((r) => ({ ...draftCommon(r, files.get(r.id)!), snippet: snippet(r), updated_at: isoTimestamp(r.updated_at) })),
            hasMore,
          ),
        };
      },
    },
    {
      method: 'POST',
      url: '/inboxes/:inbox/drafts',
      idempotent: true,
      doc: {
        summary: 'Create a draft',
        params: INBOX_PARAM,
        body: CREATE_DRAFT_SCHEMA,
        response: { status: 201, schema: objectId('inbox_draft') },
      },
      async handler(ctx) {
        const body = ctx.body as DraftBody;
        const fields = content(body);
        const requests = parseDraftAttachments(body.attachments);
        const { thread_id: threadId, reply_to_email_id: replyToId } = body;
        if ((threadId === undefined) !== (replyToId === undefined)) throw validation('Give both `thread_id` and `reply_to_email_id` for a reply, or neither.');
        const inbox = await findInbox(db, ctx.principal.accountId, ctx.params.inbox!);
        let reply: { threadId: string; messageId: string } | undefined;
        if (threadId !== undefined && replyToId !== undefined) {
          const thread = await findInInbox(db, 'inbox_threads', inbox.id, threadId, 'Thread');
          const message = await findThreadMessage(db, thread.id, replyToId);
          reply = { threadId: thread.id, messageId: message.id };
        }
        const files = await loadDraftAttachments(requests, accept.attachmentFetch);
        const id = crypto.randomUUID();
        await db.tx(async (q) => {
          await insertDraft(q, {
            id,
            inboxId: inbox.id,
            threadId: reply?.threadId ?? null,
            replyToEmailId: reply?.messageId ?? null,
            to: fields.to ?? null,
            cc: fields.cc ?? [],
            bcc: fields.bcc ?? [],
            subject: fields.subject ?? null,
            html: fields.html ?? null,
            text: fields.text ?? null,
          });
          await storeDraftAttachments(q, id, files);
          await draftEvent(q, inbox, 'inbox.draft.created', { id, threadId: reply?.threadId ?? null });
          await ctx.saveIdempotentResponse?.(q, 201, { object: 'inbox_draft', id });
        });
        return { status: 201, body: { object: 'inbox_draft', id } };
      },
    },
    {
      method: 'GET',
      url: '/inboxes/:inbox/drafts/:draft',
      doc: { summary: 'Retrieve a draft', params: DRAFT_PARAMS, response: { status: 200, schema: DRAFT_SCHEMA } },
      async handler({ principal, params }) {
        const { draft } = await find(principal.accountId, params);
        const files = await draftAttachmentViews(db, [draft.id]);
        return {
          body: {
            object: 'inbox_draft',
            ...draftCommon(draft, files.get(draft.id)!),
            html: draft.html ?? null,
            text: draft.text ?? null,
            email_id: draft.email_id ?? null,
            created_at: isoTimestamp(draft.created_at),
            updated_at: isoTimestamp(draft.updated_at),
          },
        };
      },
    },
    {
      method: 'PATCH',
      url: '/inboxes/:inbox/drafts/:draft',
      doc: {
        summary: 'Update a draft not yet sent',
        params: DRAFT_PARAMS,
        body: UPDATE_DRAFT_SCHEMA,
        response: { status: 200, schema: objectId('inbox_draft') },
      },
      async handler({ principal, params, body: raw }) {
        const body = raw as DraftBody;
        const fields = content(body);
        // Given (null and [] included), the files replace every file on the draft.
        const requests = body.attachments === undefined ? undefined : parseDraftAttachments(body.attachments);
        const { inbox, draft } = await find(principal.accountId, params);
        if (draft.email_id) throw validation('This draft was sent and can no longer be changed.');
        const files: DraftFile[] | undefined = requests && (await loadDraftAttachments(requests, accept.attachmentFetch));
        // An absent field is kept; null clears it (cc and bcc to none).
        const given = (field: keyof Content) => fields[field] !== undefined;
        await db.tx(async (q) => {
          await q.query(
            `UPDATE inbox_drafts SET
             to_addresses = CASE WHEN $2 THEN $3 ELSE to_addresses END, cc = coalesce($4, cc), bcc = coalesce($5, bcc),
             subject = CASE WHEN $6 THEN $7 ELSE subject END, html = CASE WHEN $8 THEN $9 ELSE html END,
             text = CASE WHEN $10 THEN $11 ELSE text END, updated_at = now()
           WHERE id = $1`,
            [
              draft.id,
              given('to'),
              fields.to ?? null,
              given('cc') ? (fields.cc ?? []) : null,
              given('bcc') ? (fields.bcc ?? []) : null,
              given('subject'),
              fields.subject ?? null,
              given('html'),
              fields.html ?? null,
              given('text'),
              fields.text ?? null,
            ],
          );
          if (files) await storeDraftAttachments(q, draft.id, files);
          await draftEvent(q, inbox, 'inbox.draft.updated', { id: draft.id, threadId: draft.thread_id });
        });
        return { body: { object: 'inbox_draft', id: draft.id } };
      },
    },
    {
      method: 'DELETE',
      url: '/inboxes/:inbox/drafts/:draft',
      doc: { summary: 'Delete a draft', params: DRAFT_PARAMS, response: { status: 200, schema: deletedObject('inbox_draft') } },
      async handler({ principal, params }) {
        const { inbox, draft } = await find(principal.accountId, params);
        await db.tx(async (q) => {
          await draftEvent(q, inbox, 'inbox.draft.deleted', { id: draft.id, threadId: draft.thread_id });
          await q.query('DELETE FROM inbox_drafts WHERE id = $1', [draft.id]);
        });
        return { body: { object: 'inbox_draft', id: draft.id, deleted: true } };
      },
    },
    {
      method: 'POST',
      url: '/inboxes/:inbox/drafts/:draft/send',
      idempotent: true,
      doc: {
        summary: "Send a draft from the inbox's address",
        params: DRAFT_PARAMS,
        body: input({ headers: HEADERS_SCHEMA }),
        response: { status: 200, schema: object({ id: uuid() }) },
      },
      async handler(ctx) {
        const body = ctx.body as { headers?: Record<string, string> };
        const { inbox, draft } = await find(ctx.principal.accountId, ctx.params);
        if (draft.email_id) throw validation('This draft was already sent.');
        const to = draft.to_addresses;
        if (!to || to.length === 0) throw missingField('to');
        const answered = draft.thread_id ? await findThreadMessage(db, draft.thread_id, draft.reply_to_email_id) : undefined;
        const subject = draft.subject ?? (answered ? `Re: ${answered.subject ?? ''}`.trim() : null);
        const attachments = await draftAttachmentsToSend(db, draft.id);
        const id = await sendFromInbox(accept, ctx, inbox, {
          fields: {
            to,
            cc: draft.cc.length > 0 ? draft.cc : undefined,
            bcc: draft.bcc.length > 0 ? draft.bcc : undefined,
            subject: subject ?? undefined,
            html: draft.html ?? undefined,
            text: draft.text ?? undefined,
            attachments: attachments.length > 0 ? attachments : undefined,
          },
          headers: body.headers,
          references: answered ? answerReferences(answered) : [],
          threadId: draft.thread_id ?? undefined,
          alsoCommit: async (q, emailId, filed) => {
            await q.query('UPDATE inbox_drafts SET email_id = $2, updated_at = now() WHERE id = $1', [draft.id, emailId]);
            const data = {
              source: 'api' as const,
              inbox_id: inbox.id,
              thread_id: filed.threadId,
              email_id: filed.messageId,
              draft_id: draft.id,
              thread: await threadSummary(q, filed.threadId),
              email: await eventEmailById(q, filed.messageId),
              draft: await eventDraft(q, draft.id),
            };
            return [{ accountId: inbox.account_id, type: 'inbox.draft.sent' as const, data }];
          },
        });
        return { body: { id } };
      },
    },
  ];
}
