// /inboxes/:inbox/threads/:thread/emails: a thread's messages, oldest first; one message; and
// replying to or forwarding one from the inbox's address (send-from-inbox.ts), so the answer
// joins this thread here and at the recipient's end. A forward carries the original message's
// files (original-attachments.ts) before any the caller adds.
import { missingField, validation } from '../api/errors.js';
import { listDoc, listOldestFirst, envelope, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { boolean, input, type JsonSchema, object, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import type { AcceptDeps } from '../emails/accept.js';
import { type AttachmentBody, attachmentRequests } from '../emails/attachments.js';
import { findInbox, findInInbox, findThreadMessage, type InboxMessageRow } from './find-inbox.js';
import { type ForwardedFile, originalAttachments } from './original-attachments.js';
import { HEADERS_SCHEMA, SENT_ADDRESSES, SENT_ATTACHMENTS, SENT_TO, SUBJECT_SCHEMA } from './outgoing-fields.js';
import { answerReferences, sendFromInbox } from './send-from-inbox.js';
import { THREAD_PARAMS } from './thread-routes.js';
import { MESSAGE_SCHEMA, messageView } from './thread-view.js';
import { escapeHtml } from '../message/escape-html.js';

const EMAIL_PARAMS = { ...THREAD_PARAMS, email: uuid('The id of the message in the thread.') };
const SENT = object({ id: uuid() });
const MAX_FORWARD_FILES = 10;
const MAX_FORWARD_BYTES = 25 * 1024 * 1024;

async function findMessage(db: Db, accountId: string, params: Record<string, string>) {
  const inbox = await findInbox(db, accountId, params.inbox!);
  const thread = await findInInbox(db, 'inbox_threads', inbox.id, params.thread!, 'Thread');
  const message = await findThreadMessage(db, thread.id, params.email!);
  return { inbox, thread, message };
}

/** The body of a reply or a forward once it passed its schema: POST /emails fields but `from`, and `reply_all`. */
interface OutgoingFields {
  to?: string | string[];
  cc?: string | string[];
  bcc?: string | string[];
  subject?: string;
  html?: string;
  text?: string;
  attachments?: AttachmentBody[];
  headers?: Record<string, string>;
  reply_all?: boolean;
}

/** `to`, `cc` or `bcc` as a list. */
const addressList = (value: string | string[] | undefined): string[] => (value === undefined ? [] : typeof value === 'string' ? [value] : [...value]);

const prefixed = (prefix: string, subject: string | null) => {
  const s = subject ?? '';
  return s.toLowerCase().startsWith(prefix.toLowerCase()) ? s : `${prefix} ${s}`.trim();
};

function listThreadEmails(db: Db): Route {
  return {
    method: 'GET',
    url: '/inboxes/:inbox/threads/:thread/emails',
    doc: { ...listDoc("List a thread's messages, oldest first", MESSAGE_SCHEMA), params: THREAD_PARAMS },
    async handler({ principal, params, query }) {
      const page = parsePage(query);
      const inbox = await findInbox(db, principal.accountId, params.inbox!);
      const thread = await findInInbox(db, 'inbox_threads', inbox.id, params.thread!, 'Thread');
      const { rows, hasMore } = await listOldestFirst<InboxMessageRow>(db, {
        table: 'inbox_messages',
        columns: '*',
        where: 'thread_id = $1',
        params: [thread.id],
        key: ['created_at', 'id'],
        page,
      });
      return { body: envelope(rows.map(messageView), hasMore) };
    },
  };
}

function getThreadEmail(db: Db): Route {
  return {
    method: 'GET',
    url: '/inboxes/:inbox/threads/:thread/emails/:email',
    doc: { summary: 'Retrieve one message of a thread', params: EMAIL_PARAMS, response: { status: 200, schema: MESSAGE_SCHEMA } },
    async handler({ principal, params }) {
      const { message } = await findMessage(db, principal.accountId, params);
      return { body: messageView(message) };
    },
  };
}

const COMMON_FIELDS: Record<string, JsonSchema> = {
  cc: SENT_ADDRESSES,
  bcc: SENT_ADDRESSES,
  html: string(),
  text: string(),
  attachments: SENT_ATTACHMENTS,
  headers: HEADERS_SCHEMA,
};

function replyToThreadEmail(db: Db, accept: AcceptDeps): Route {
  return {
    method: 'POST',
    url: '/inboxes/:inbox/threads/:thread/emails/:email/reply',
    idempotent: true,
    doc: {
      summary: "Reply to a thread's message from the inbox's address",
      params: EMAIL_PARAMS,
      body: input(
        {
          ...COMMON_FIELDS,
          subject: { ...SUBJECT_SCHEMA, description: 'Default: "Re: " and the subject of the message answered.' },
          reply_all: boolean({ default: false, description: "Copy the message's other recipients too." }),
        },
        [],
        { description: 'At least one of `html` and `text`.' },
      ),
      response: { status: 200, schema: SENT },
    },
    async handler(ctx) {
      const body = ctx.body as OutgoingFields;
      // At least one: in code, so that a misspelt field is refused as unknown rather than as this.
      if (body.html === undefined && body.text === undefined) throw missingField('html');
      const replyAll = body.reply_all ?? false;
      const { inbox, thread, message } = await findMessage(db, ctx.principal.accountId, ctx.params);
      const own = (a: string) => a.toLowerCase() === inbox.email_address;
      const inbound = message.direction === 'inbound';
      const replyTo = message.reply_to;
      const to = inbound ? (replyTo.length > 0 ? replyTo : [message.from_address]) : message.to_addresses;
      const cc = addressList(body.cc);
      if (replyAll) {
        const others = [...message.to_addresses, ...message.cc].filter((a) => !own(a) && !to.includes(a) && !cc.includes(a));
        cc.push(...others);
      }
      const id = await sendFromInbox(accept, ctx, inbox, {
        fields: {
          to: to.filter((a) => !own(a)),
          cc: cc.length > 0 ? cc : undefined,
          bcc: body.bcc,
          subject: body.subject ?? prefixed('Re:', message.subject),
          html: body.html,
          text: body.text,
          attachments: body.attachments,
        },
        headers: body.headers,
        references: answerReferences(message),
        threadId: thread.id,
      });
      return { body: { id } };
    },
  };
}

function forwardThreadEmail(db: Db, accept: AcceptDeps): Route {
  return {
    method: 'POST',
    url: '/inboxes/:inbox/threads/:thread/emails/:email/forward',
    idempotent: true,
    doc: {
      summary: "Forward a thread's message, with its files, from the inbox's address, quoted below the note given",
      params: EMAIL_PARAMS,
      body: input(
        {
          to: SENT_TO,
          ...COMMON_FIELDS,
          subject: { ...SUBJECT_SCHEMA, description: 'Default: "Fwd: " and the subject of the message forwarded.' },
          html: string({ description: 'A note above the quoted message.' }),
          text: string({ description: 'A note above the quoted message.' }),
        },
        ['to'],
      ),
      response: { status: 200, schema: SENT },
    },
    async handler(ctx) {
      const body = ctx.body as OutgoingFields & { to: string | string[] };
      const note = { html: body.html, text: body.text };
      const { inbox, thread, message } = await findMessage(db, ctx.principal.accountId, ctx.params);
      const quoted = [
        '---------- Forwarded message ---------',
        `From: ${message.from_display}`,
        `Date: ${message.created_at.toUTCString()}`,
        `Subject: ${message.subject ?? ''}`,
        `To: ${message.to_addresses.join(', ')}`,
      ];
      const originalText = message.text ?? '';
      const originalHtml = message.html ?? `<pre>${escapeHtml(originalText)}</pre>`;
      const attachments = forwardedAttachments(body.attachments, await originalAttachments(db, message));
      const id = await sendFromInbox(accept, ctx, inbox, {
        fields: {
          to: body.to,
          cc: body.cc,
          bcc: body.bcc,
          subject: body.subject ?? prefixed('Fwd:', message.subject),
          text: `${note.text ?? ''}\n\n${quoted.join('\n')}\n\n${originalText}`.trimStart(),
          html: `${note.html ?? (note.text ? `<p>${escapeHtml(note.text)}</p>` : '')}<br><div>${quoted.map(escapeHtml).join('<br>')}</div><br>${originalHtml}`,
          attachments,
        },
        headers: body.headers,
        references: answerReferences(message),
        threadId: thread.id,
      });
      return { body: { id } };
    },
  };
}

/**
 * The original's files, then the caller's, held to Resend's shared limit: 10 files, 25 MB of
 * `content` (a `path` file counts toward the 10 only: it is fetched when the email is sent).
 */
function forwardedAttachments(given: AttachmentBody[] | undefined, originals: ForwardedFile[]): unknown {
  const added = attachmentRequests(given) ?? [];
  if (originals.length === 0) return given;
  if (originals.length + added.length > MAX_FORWARD_FILES) {
    throw validation(`A forward carries the original message's ${originals.length} file(s); with those given it can have at most ${MAX_FORWARD_FILES} files.`);
  }
  const bytes = originals.reduce((sum, f) => sum + Buffer.byteLength(f.content, 'base64'), 0) + added.reduce((sum, a) => sum + (a.content?.length ?? 0), 0);
  if (bytes > MAX_FORWARD_BYTES) throw validation("A forward's files, the original message's included, can total at most 25 MB.");
  return [...originals, ...(given ?? [])];
}

export function threadEmailRoutes(db: Db, accept: AcceptDeps): Route[] {
  return [listThreadEmails(db), getThreadEmail(db), replyToThreadEmail(db, accept), forwardThreadEmail(db, accept)];
}
