// The files of a thread's message, for a forward to carry them (Resend: "the attachments of
// the original message, which the forward also sends"), as POST /emails attachments given by
// `content`. Read from where Postline keeps them, never stored a second time:
// - a received message: its stored raw message, parsed again as at arrival (inbound/'s
//   received_attachments name each file's position in the parser's list);
// - a sent message: the parts of its signed message (email_attachments point at each one).
// Inline parts keep their Content-ID, so the quoted html's cid: images still show. When the
// original is gone (received-mail retention, a deleted email) the forward is refused, rather
// than sent without the files it quotes.
import { ApiError } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import { signedMessageSql } from '../email-row/stored-message.js';
import { decodeTransfer } from '../message/mime-decoding.js';
import { messageParser } from '../message/parse-message.js';
import type { InboxMessageRow } from './find-inbox.js';

export interface ForwardedFile {
  filename?: string;
  content_type: string;
  content_id?: string;
  content: string;
}

interface FileRow {
  filename: string | null;
  content_type: string;
  content_id: string | null;
  content: Buffer;
}

interface ReceivedFileRow {
  position: number;
  filename: string | null;
  content_type: string;
  content_id: string | null;
  size: number;
  raw: Buffer;
}

interface SentPartRow {
  filename: string | null;
  content_type: string;
  content_id: string | null;
  transfer_encoding: string;
  body: Buffer;
}

/** What POST /emails accepts as a content id (emails/attachments.ts); another is left off. */
const CONTENT_ID = /^[!-;=?-~]{1,127}$/;

const gone = () =>
  new ApiError('invalid_attachment', "The original message's attachments are no longer stored (retention), so it cannot be forwarded with them.");

async function receivedFiles(q: Queryable, receivedEmailId: string): Promise<FileRow[]> {
  const rows = await q.query<ReceivedFileRow>(
    `SELECT a.position, a.filename, a.content_type, a.content_id, a.size, m.raw
       FROM received_attachments a JOIN received_emails r ON r.id = a.received_email_id
       JOIN inbound_messages m ON m.id = r.inbound_message_id
      WHERE a.received_email_id = $1 ORDER BY a.position`,
    [receivedEmailId],
  );
  if (rows.length === 0) return [];
  const parsed = await messageParser.parseEmail(rows[0]!.raw);
  return rows.map((row) => {
    const part = parsed.attachments[row.position];
    const content = part
      ? typeof part.content === 'string'
        ? Buffer.from(part.content, part.encoding === 'base64' ? 'base64' : 'utf8')
        : Buffer.from(part.content as ArrayBuffer)
      : undefined;
    // The parser must see the message as it did at arrival; anything else would send other bytes.
    if (!content || content.length !== Number(row.size)) throw new Error(`forward: received attachment ${row.position} no longer parses as stored`);
    return { filename: row.filename, content_type: row.content_type, content_id: row.content_id, content };
  });
}

async function sentFiles(q: Queryable, emailId: string): Promise<FileRow[]> {
  const rows = await q.query<SentPartRow>(
    `SELECT a.filename, a.content_type, a.content_id, a.transfer_encoding,
            substring(${signedMessageSql('e')} FROM a.mime_offset::int + 1 FOR a.mime_length::int) AS body
       FROM email_attachments a JOIN emails e ON e.id = a.email_id
      WHERE a.email_id = $1 ORDER BY a.position`,
    [emailId],
  );
  return rows.map((row) => ({
    filename: row.filename,
    content_type: row.content_type,
    content_id: row.content_id,
    content: decodeTransfer(row.body, row.transfer_encoding),
  }));
}

/** The files of the inbox message `message` (a row of inbox_messages), in their order. */
export async function originalAttachments(q: Queryable, message: InboxMessageRow): Promise<ForwardedFile[]> {
  const expected = message.attachments.length;
  if (expected === 0) return [];
  const sourceId = message.source_email_id;
  const files = message.direction === 'inbound' ? await receivedFiles(q, sourceId) : await sentFiles(q, sourceId);
  if (files.length < expected) throw gone();
  return files.map((f) => ({
    ...(f.filename ? { filename: f.filename } : {}),
    content_type: f.content_type,
    ...(f.content_id && CONTENT_ID.test(f.content_id) ? { content_id: f.content_id } : {}),
    content: f.content.toString('base64'),
  }));
}
