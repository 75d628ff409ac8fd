// Writing a received message (0011_inbound.sql), inside the receiving transaction: the raw
// bytes once, then for each account it was for a received_emails row (its own id, its own
// received_for), the attachment list, its filing into inboxes, and the `email.received` event
// (with the inboxes' events) through recordEvents.
// A constant number of statements whatever the number of accounts and attachments.
import crypto from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { recordEvents } from '../events/record-events.js';
import { type FilingOptions, fileReceived } from '../inboxes/file-received.js';
import type { Authentication } from './authenticate.js';
import type { InboundEnvelope } from './inbound.js';
import type { ParsedMessage } from '../message/received-message.js';
import { type ReceivedEmailRow, receivedEventData } from './received-view.js';

interface MessageToStore {
  id: string;
  /** What is kept: the message with our trace headers in front. */
  raw: Buffer;
  envelope: InboundEnvelope;
  auth: Authentication;
  parsed: ParsedMessage;
}

interface StoredReceivedRow extends ReceivedEmailRow {
  account_id: string;
}

/** Stores the message for each account in `byAccount` (account id → its envelope recipients); returns the received email ids. */
export async function storeReceived(q: Queryable, message: MessageToStore, byAccount: Map<string, string[]>, filing: FilingOptions): Promise<string[]> {
  const { envelope, auth, parsed } = message;
  await q.query(
    `INSERT INTO inbound_messages (id, raw, mail_from, rcpt_to, remote_address, client_hostname, helo_name, secure, spf, dkim, dmarc, authentication)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      message.id,
      message.raw,
      envelope.mailFrom,
      envelope.rcptTo,
      envelope.remoteAddress,
      envelope.clientHostname || null,
      envelope.heloName || null,
      envelope.secure,
      auth.spf,
      auth.dkim,
      auth.dmarc,
      JSON.stringify(auth.details),
    ],
    'store-inbound-message',
  );

  const accounts = [...byAccount.entries()].map(([accountId, receivedFor]) => ({ id: crypto.randomUUID(), accountId, receivedFor }));
  const emails = await q.query<StoredReceivedRow>(
    `INSERT INTO received_emails (id, account_id, inbound_message_id, received_for, from_address, to_addresses, cc, bcc,
       reply_to, subject, message_id, html, text, headers)
     SELECT v.id, v.account_id, $3::uuid, ARRAY(SELECT jsonb_array_elements_text(v.received_for)), $4::text, $5::text[], $6::text[],
            $7::text[], $8::text[], $9::text, $10::text, $11::text, $12::text, $13::jsonb
       FROM unnest($1::uuid[], $2::uuid[], $14::jsonb[]) AS v(id, account_id, received_for)
     RETURNING id, account_id, received_for, from_address, to_addresses, cc, bcc, reply_to, subject, message_id, created_at`,
    [
      accounts.map((a) => a.id),
      accounts.map((a) => a.accountId),
      message.id,
      parsed.from,
      parsed.to,
      parsed.cc,
      parsed.bcc,
      parsed.replyTo,
      parsed.subject,
      parsed.messageId,
      parsed.html,
      parsed.text,
      JSON.stringify(parsed.headers),
      accounts.map((a) => JSON.stringify(a.receivedFor)),
    ],
    'store-received-emails',
  );

  const attachments = emails.flatMap((e) => parsed.attachments.map((a) => ({ ...a, id: crypto.randomUUID(), receivedEmailId: e.id, accountId: e.account_id })));
  if (attachments.length > 0) {
    const column = <T>(f: (a: (typeof attachments)[number]) => T) => attachments.map(f);
    await q.query(
      `INSERT INTO received_attachments (id, received_email_id, account_id, position, filename, content_type, content_id, content_disposition, size)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[])`,
      [
        column((a) => a.id),
        column((a) => a.receivedEmailId),
        column((a) => a.accountId),
        column((a) => a.position),
        column((a) => a.filename),
        column((a) => a.contentType),
        column((a) => a.contentId),
        column((a) => a.disposition),
        column((a) => a.size),
      ],
    );
  }

  // Mail for an inbox's address is filed into its threads in this same transaction, and its
  // events recorded with email.received, after them.
  const filed = await fileReceived(
    q,
    emails.map((e) => ({
      id: e.id,
      accountId: e.account_id,
      receivedFor: e.received_for,
      attachments: attachments.filter((a) => a.receivedEmailId === e.id),
    })),
    parsed,
    filing,
  );
  await recordEvents(q, [
    ...emails.map((e) => ({
      accountId: e.account_id,
      type: 'email.received' as const,
      emailId: e.id,
      data: receivedEventData(
        e,
        attachments
          .filter((a) => a.receivedEmailId === e.id)
          .map((a) => ({ id: a.id, filename: a.filename, content_type: a.contentType, content_disposition: a.disposition, content_id: a.contentId })),
      ),
    })),
    ...filed,
  ]);
  return emails.map((e) => e.id);
}
