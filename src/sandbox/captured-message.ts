// One captured message (sandbox_messages) of the caller's account, found by id; another
// account's id is not found. Parsed on read (postal-mime): the table keeps the bytes as they
// arrived, and the routes read their parts from them.
import { notFound } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import PostalMime, { type Email } from 'postal-mime';
import type { DkimResult } from './catcher.js';

/** The columns the list reads of sandbox_messages. */
export interface SandboxSummaryRow {
  id: string;
  email_id: string | null;
  mail_from: string;
  rcpt_to: string[];
  subject: string;
  from_header: string;
  dkim: DkimResult[];
  created_at: Date;
}

interface SandboxMessageRow extends SandboxSummaryRow {
  account_id: string | null;
  raw: Buffer;
}

export async function findCaptured(db: Queryable, accountId: string, id: string): Promise<SandboxMessageRow> {
  const [row] = await db.query<SandboxMessageRow>(`SELECT * FROM sandbox_messages WHERE id = $1 AND account_id = $2`, [id, accountId]);
  if (!row) throw notFound('Sandbox message');
  return row;
}

/** The message's parts, attachments as bytes (in the message's order: their index is their position). */
export const parseCaptured = (row: SandboxMessageRow): Promise<Email> => PostalMime.parse(row.raw, { attachmentEncoding: 'arraybuffer' });
