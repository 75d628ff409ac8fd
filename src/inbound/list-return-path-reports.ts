// GET /emails/:id/reports: every message that came back to one of the caller's emails' return
// path, oldest first (return_path_messages, written by store-return-path-mail.ts): who sent it,
// what it was recognised as (verdict and format) and why, and what each report in it came to:
// the recipient it names, its enhanced status, the remote reply, the bounce's type and subType,
// and the event it recorded (null when it recorded none: a repeat, or no recipient matched).
// Auto-replies and unrecognised messages are listed too, with no reports. Paged as Resend's lists.
import { envelope, listDoc, listOldestFirst, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { array, integer, isoTime, nullable, object, oneOfValues, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { accountEmailOr404 } from '../email-row/account-email.js';
import type { Recognition } from './recognise-return-path-mail.js';
import type { Finding } from './record-reports.js';

const VERDICTS = ['bounce', 'delay', 'complaint', 'auto_reply', 'no_news', 'unrecognised'] as const;

const FINDING_SCHEMA = object({
  kind: oneOfValues(['failed', 'delayed', 'complaint']),
  recipient: nullable(string({ description: "The email's recipient the report was matched to; null when it named none of them." })),
  status: nullable(string({ description: 'The enhanced status code (RFC 3463), the most precise one the report gives.' })),
  diagnostic_code: nullable(string({ description: "The remote server's reply, or the report's own words about this recipient." })),
  bounce: nullable(object({ type: string(), subType: string() })),
  event: nullable(string({ description: 'The event this report recorded; null when none (a repeat, or no recipient matched).' })),
});

const REPORT_SCHEMA = object({
  id: integer({ description: "The message's position among all return-path messages (increasing); the paging cursor." }),
  mail_from: string({ description: "The envelope sender ('' for a null sender, as bounces have)." }),
  from: nullable(string()),
  subject: nullable(string()),
  verdict: oneOfValues(VERDICTS),
  format: string({ description: 'What it was read as: rfc3464, arf, a server family (qmail, exim, gmail-legacy, …), prose, auto-reply, none.' }),
  reason: string({ description: 'Why, in a sentence.' }),
  reports: array(FINDING_SCHEMA),
  received_at: isoTime(),
});

interface ReturnPathMessageRow {
  id: number;
  mail_from: string;
  from_header: string | null;
  subject: string | null;
  verdict: Recognition['verdict'];
  format: string;
  reason: string;
  findings: Finding[];
  received_at: Date;
}

export function listReturnPathReports(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails/:id/reports',
    doc: {
      ...listDoc("What came back to an email's return path, oldest first", REPORT_SCHEMA, { defaultLimit: 100, cursor: 'serial' }),
      description:
        'Every message that reached the return path: bounces and delays (standard, known formats, prose), complaints, auto-replies (never counted as bounces) and what was not recognised, each with its verdict and why.',
      params: { id: uuid() },
      tags: ['emails'],
      addition: true,
    },
    async handler({ principal, params, query }) {
      const page = parsePage(query, { defaultLimit: 100 });
      const emailId = await accountEmailOr404(db, principal.accountId, params.id);
      const { rows, hasMore } = await listOldestFirst<ReturnPathMessageRow>(db, {
        table: 'return_path_messages',
        columns: 'id, mail_from, from_header, subject, verdict, format, reason, findings, received_at',
        where: 'email_id = $1',
        params: [emailId],
        key: ['received_at', 'id'],
        page,
      });
      const data = rows.map((r) => ({
        id: Number(r.id),
        mail_from: r.mail_from,
        from: r.from_header,
        subject: r.subject,
        verdict: r.verdict,
        format: r.format,
        reason: r.reason,
        reports: r.findings.map((f) => ({
          kind: f.kind,
          recipient: f.recipient,
          status: f.status,
          diagnostic_code: f.diagnostic,
          bounce: f.bounce,
          event: f.event,
        })),
        received_at: r.received_at.toISOString(),
      }));
      return { body: envelope(data, hasMore) };
    },
  };
}
