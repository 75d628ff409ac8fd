// The one writer of return_path_messages (migration 0045): every message that reached an
// email's return path, with the verdict recognise-return-path-mail.ts gave it, why, and what
// each report in it came to (record-reports.ts), so nothing there is dropped unseen.
// Written in the receiving transaction, after the reports were applied.
import type { Queryable } from '../db/database.js';
import type { Recognition } from './recognise-return-path-mail.js';
import type { Finding } from './record-reports.js';

interface ReturnPathMessage {
  emailId: string;
  mailFrom: string;
  fromHeader: string | null;
  subject: string | null;
  recognition: Recognition;
  findings: Finding[];
}

/** PostgreSQL text cannot hold NUL. */
const clean = (text: string | null) => (text === null ? null : text.replaceAll('\0', '\uFFFD').slice(0, 998));

export async function storeReturnPathMessage(q: Queryable, message: ReturnPathMessage): Promise<void> {
  const { recognition } = message;
  await q.query(
    `INSERT INTO return_path_messages (email_id, account_id, mail_from, from_header, subject, verdict, format, reason, findings)
     SELECT id, account_id, $2, $3, $4, $5, $6, $7, $8 FROM emails WHERE id = $1`,
    [
      message.emailId,
      clean(message.mailFrom),
      clean(message.fromHeader),
      clean(message.subject),
      recognition.verdict,
      recognition.format,
      clean(recognition.reason),
      JSON.stringify(message.findings),
    ],
  );
}
