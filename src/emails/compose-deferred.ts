// Composition at delivery: emails accepted with `composeAt: 'delivery'` (the API's, broadcasts'
// and SMTP submissions', see accept.ts) are written without their signed message. The delivery
// worker hands the ones it claims here just before their first attempt; each is composed,
// tracked and signed exactly as at accept (build-message.ts) from its stored fields, dated when
// it was accepted, or, for an SMTP submission, its prepared message is signed (email-row/stored-message.ts).
// The delivery outcome's transaction then stores the message (src/delivery/outcomes.ts), so a
// retry sends the same bytes and the email's record shows what went out.
//
// Two queries per claim (the emails, their domains' keys), whatever the number of emails.
import type { Queryable } from '../db/database.js';
import { storedMessageColumns, storedMessageOf, type StoredMessageRow } from '../email-row/stored-message.js';
import { findSendingDomainsById } from '../domains/sending-domain.js';
import type { TrackingSigners } from '../tracking/tracking-links.js';
import { buildSignedMessage, tracksAny } from './build-message.js';
import { textFromHtml, textPart } from './compose.js';
import { signMessage } from '../message/dkim.js';
import { emailRequestOf, type EmailRequest } from './email-request.js';

interface ComposedMessage {
  mime: Buffer;
  /** The text part sent, for emails.text (generated from the html unless given). */
  text: string | null;
}

/**
 * emails.text of an email composed later: the request's text with "generate from html" kept
 * apart from "no text part" (null and "", which emailRequestOf reads back as they were).
 */
export function deferredText(request: EmailRequest): string | null {
  if (request.text === undefined) return null;
  return request.text ?? '';
}

/** The text part an email not yet composed will have, from its stored html and deferredText(). */
export function textToBeSent(html: string | null, stored: string | null): string | null {
  if (stored === '') return null;
  return stored ?? (html ? textFromHtml(html) : null);
}

/** An email to compose: its stored fields, and its message when it has one. */
interface DeferredEmailRow extends StoredMessageRow {
  id: string;
  /** null once its domain is deleted (ON DELETE SET NULL). */
  domain_id: string | null;
  from_address: string;
  to_addresses: string[];
  cc: string[] | null;
  bcc: string[] | null;
  reply_to: string[] | null;
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string> | null;
  message_id: string;
  created_at: Date;
}

/** Composes and signs the emails `ids`; an email that cannot be composed maps to its Error. */
export async function composeDeferred(q: Queryable, tracking: () => Promise<TrackingSigners>, ids: string[]): Promise<Map<string, ComposedMessage | Error>> {
  const rows = await q.query<DeferredEmailRow>(
    `SELECT e.id, e.domain_id, e.from_address, e.to_addresses, e.cc, e.bcc, e.reply_to, e.subject, e.html, e.text, e.headers, e.message_id,
            e.created_at, ${storedMessageColumns('e', true)}
       FROM emails e WHERE e.id = ANY($1::uuid[])`,
    [ids],
  );
  // A null domain_id (its domain deleted) finds no domain; the email then fails below as having none.
  const domains = await findSendingDomainsById(
    q,
    rows.map((r) => r.domain_id as string),
  );
  const tracked = [...domains.values()].some(tracksAny);
  const signers = tracked ? await tracking() : undefined;
  const composed = new Map<string, ComposedMessage | Error>(ids.map((id) => [id, new Error('the email no longer exists')]));
  const texts = new Map<string, string>();
  await Promise.all(
    rows.map(async (row) => {
      try {
        const domain = domains.get(row.domain_id as string);
        if (!domain) throw new Error('the sending domain no longer exists');
        const stored = storedMessageOf(row);
        if (stored.state === 'signed') {
          // Another node's attempt stored it meanwhile: send the same bytes.
          composed.set(row.id, { mime: stored.message, text: row.text });
          return;
        }
        if (stored.state === 'unsigned') {
          composed.set(row.id, { mime: await signMessage(stored.message, domain), text: row.text });
          return;
        }
        // Its fields were checked when it was accepted: read back, not checked again.
        const request = emailRequestOf({
          from: row.from_address,
          to: row.to_addresses,
          cc: row.cc ?? undefined,
          bcc: row.bcc ?? undefined,
          reply_to: row.reply_to ?? undefined,
          subject: row.subject,
          html: row.html ?? undefined,
          text: row.text ?? undefined,
          headers: row.headers ?? undefined,
        });
        const text = textPart(request, texts);
        const mime = await buildSignedMessage({
          id: row.id,
          request,
          domain,
          text,
          messageId: row.message_id,
          date: row.created_at,
          signers: tracksAny(domain) ? signers : undefined,
        });
        composed.set(row.id, { mime, text });
      } catch (err) {
        composed.set(row.id, err instanceof Error ? err : new Error(String(err)));
      }
    }),
  );
  return composed;
}
