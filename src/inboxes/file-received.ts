// The inbound hook: inside the receiving transaction (src/inbound/store-received.ts), each
// received email whose envelope recipients include an inbox's address is filed into a thread
// of that inbox (threading.ts), one statement each; their events are returned for the
// receiving transaction's one recordEvents call. One query when no inbox is addressed, which
// is the common case.
// With a model endpoint configured, a thread the mail starts gets its agent's draft queued.
import type { Queryable } from '../db/database.js';
import type { NewEvent } from '../events/record-events.js';
import { header, type ParsedMessage } from '../message/received-message.js';
import { queueAgentDraft } from './agent-jobs.js';
import { addMessage, messageIdsIn } from './threading.js';

interface ReceivedForInboxes {
  /** The received email's id (one per account the message was for). */
  id: string;
  accountId: string;
  /** Its envelope recipients on that account's domains. */
  receivedFor: string[];
  attachments: { id: string; filename: string | null; size: number }[];
}

/** The received message as parsed; its attachments come stored, with their ids, in ReceivedForInboxes. */
type ReceivedMessage = Omit<ParsedMessage, 'attachments'>;

/** The From header as written ("Name <addr>"), unless it is MIME-encoded: then the bare address. */
function fromDisplay(message: ReceivedMessage): string {
  const written = header(message.headers, 'from')?.trim();
  return written && !written.includes('=?') ? written : message.from;
}

export interface FilingOptions {
  /** A model endpoint is configured (POSTLINE_AGENT_URL): new threads of inboxes whose agent drafts replies get a job. */
  queueAgentDrafts: boolean;
}

/** Files the received emails into the inboxes they were for; returns the events to record. */
export async function fileReceived(q: Queryable, emails: ReceivedForInboxes[], message: ReceivedMessage, options: FilingOptions): Promise<NewEvent[]> {
  if (emails.length === 0) return [];
  // A key lookup of the recipients' addresses, matched to their accounts' emails here: a join
  // over the emails unnested in SQL cost more to plan (0.106 against 0.045 ms), and PostgreSQL
  // plans both anew at each message (it finds their generic plans dearer).
  const addressed = emails.map((email) => ({ email, addresses: email.receivedFor.map((a) => a.toLowerCase()) }));
  const addresses = [...new Set(addressed.flatMap((a) => a.addresses))];
  const inboxes = await q.query<{ id: string; account_id: string; email_address: string }>(
    'SELECT id, account_id, email_address FROM inboxes WHERE email_address = ANY($1::text[]) ORDER BY id',
    [addresses],
    'inboxes-addressed',
  );
  const events: NewEvent[] = [];
  for (const inbox of inboxes) {
    const email = addressed.find((a) => a.email.accountId === inbox.account_id && a.addresses.includes(inbox.email_address))?.email;
    // Only an account the message was routed to gets it in its inboxes (addresses are unique and
    // an inbox goes with its domain, so this is a guard, as the account match of the SQL before).
    if (!email) continue;
    const filed = await addMessage(q, inbox, {
      direction: 'inbound',
      sourceEmailId: email.id,
      messageId: message.messageId,
      references: messageIdsIn(header(message.headers, 'references'), header(message.headers, 'in-reply-to')),
      fromDisplay: fromDisplay(message),
      fromAddress: message.from,
      to: message.to,
      cc: message.cc,
      bcc: message.bcc,
      replyTo: message.replyTo,
      subject: message.subject,
      html: message.html,
      text: message.text,
      attachments: email.attachments.map((a) => ({ id: a.id, filename: a.filename, size: a.size })),
    });
    events.push(...filed.events);
    if (filed.created && options.queueAgentDrafts) await queueAgentDraft(q, inbox.id, filed);
  }
  return events;
}
