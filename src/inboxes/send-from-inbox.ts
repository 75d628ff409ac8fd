// Sending from an inbox (replies, forwards, drafts): the email goes through the one accept
// pipeline (src/emails/accept.ts) from the inbox's address and name, with In-Reply-To and
// References naming the message it answers, so the recipient's client threads it too. The
// inbox's copy of the sent message is added to the thread in the accepting transaction
// (beforeCommit), so the 200 means both the email and its place in the thread are committed.
import crypto from 'node:crypto';
import { validation } from '../api/errors.js';
import type { RouteContext } from '../api/route.js';
import type { Queryable } from '../db/database.js';
import { type AcceptDeps, acceptEmails } from '../emails/accept.js';
import { type EmailRequest, parseEmailRequest } from '../emails/email-request.js';
import { type NewEvent, recordEvents } from '../events/record-events.js';
import type { InboxMessageRow, InboxRow } from './find-inbox.js';
import { addMessage } from './threading.js';

/** Set by Postline from the message answered; a caller's `headers` may not name them (Resend's rule). */
const THREADING_HEADERS = ['in-reply-to', 'references', 'reply-to'];

interface OutgoingFromInbox {
  /** POST /emails fields except `from` and `headers`: to, cc, bcc, subject, html, text, attachments. */
  fields: Record<string, unknown>;
  /** The caller's custom headers, as their schema passed them (HEADERS_SCHEMA, outgoing-fields.ts); absent: none. */
  headers: Record<string, string> | undefined;
  /** The Message-IDs it answers, oldest first; the last is In-Reply-To. Empty for a new conversation. */
  references: string[];
  /** The thread it belongs to; undefined: threading.ts decides (a new one for a new conversation). */
  threadId?: string;
  /** More writes in the accepting transaction, given the new email's id (a draft marked sent); returns their events. */
  alsoCommit?: (q: Queryable, emailId: string, filed: { threadId: string; messageId: string }) => Promise<NewEvent[]>;
}

/** The Message-IDs an answer to an inbox message refers to: its own references, then itself. */
export const answerReferences = (message: InboxMessageRow): string[] => [...message.references_ids, ...(message.message_id ? [message.message_id] : [])];

/** `"Name" <address>` with the name quoted (RFC 5322 quoted-string), or the bare address. */
function fromField(inbox: InboxRow): string {
  if (!inbox.from_name) return inbox.email_address;
  return `"${inbox.from_name.replace(/[\\"]/g, (c) => `\\${c}`)}" <${inbox.email_address}>`;
}

/** A copy of the caller's headers, refused if they name one of THREADING_HEADERS (in any case: no pattern of the schema). */
function customHeaders(given: Record<string, string> | undefined): Record<string, string> {
  for (const name of Object.keys(given ?? {})) {
    if (THREADING_HEADERS.includes(name.toLowerCase())) throw validation(`The \`${name}\` header is set by Postline and cannot be set in \`headers\`.`);
  }
  return { ...given };
}

export async function sendFromInbox(deps: AcceptDeps, ctx: RouteContext, inbox: InboxRow, outgoing: OutgoingFromInbox): Promise<string> {
  const headers = customHeaders(outgoing.headers);
  const refs = outgoing.references;
  if (refs.length > 0) {
    headers['In-Reply-To'] = refs[refs.length - 1]!;
    headers.References = refs.join(' ');
  }
  let request: EmailRequest | undefined;
  const payload = { ...outgoing.fields, from: fromField(inbox), headers };
  const { ids } = await acceptEmails(deps, {
    principal: ctx.principal,
    source: 'api',
    composeAt: 'delivery',
    payloads: [payload],
    validate: (p) => {
      request = parseEmailRequest(p);
      return request;
    },
    mode: 'strict',
    beforeCommit: async (q, result) => {
      const emailId = result.ids[0]!;
      const r = request!;
      const bare = (list: { address: string }[]) => list.map((m) => m.address);
      const filed = await addMessage(
        q,
        inbox,
        {
          direction: 'outbound',
          sourceEmailId: emailId,
          messageId: result.messageIds[0]!,
          references: refs,
          fromDisplay: r.from,
          fromAddress: r.sender.address,
          to: bare(r.toMailboxes),
          cc: bare(r.ccMailboxes),
          bcc: bare(r.bccMailboxes),
          replyTo: bare(r.replyToMailboxes),
          subject: r.subject,
          html: r.html,
          text: typeof r.text === 'string' ? r.text : null,
          attachments: (r.attachments ?? []).map((a) => ({ id: crypto.randomUUID(), filename: a.filename, size: a.content?.length ?? null })),
        },
        outgoing.threadId,
      );
      const more = (await outgoing.alsoCommit?.(q, emailId, filed)) ?? [];
      await recordEvents(q, [...filed.events, ...more]);
      await ctx.saveIdempotentResponse?.(q, 200, { id: emailId });
    },
  });
  return ids[0]!;
}
