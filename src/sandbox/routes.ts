// The sandbox's captured mail (POSTLINE_SANDBOX), like Mailpit shows it: the list, one message
// parsed (HTML, text, headers, attachments, the DKIM verdict), and the raw message as it
// arrived. Mounted only in sandbox mode; the key's account only. Postline's own routes.
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { array, constant, integer, nullable, object, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import PostalMime, { decodeWords } from 'postal-mime';
import type { DkimResult } from './catcher.js';

const DKIM = array(object({ result: string(), domain: nullable(string()), selector: nullable(string()), comment: nullable(string()) }));
const SUMMARY = {
  object: constant('sandbox_message'),
  id: uuid(),
  email_id: nullable(uuid()),
  from: string(),
  to: array(string()),
  subject: string(),
  dkim: string({ description: 'pass when a signature verifies against the key Postline holds for the domain; else the first result, or none.' }),
  created_at: string({ format: 'date-time' }),
};

const dkimVerdict = (results: { result: string }[]) => (results.some((r) => r.result === 'pass') ? 'pass' : (results[0]?.result ?? 'none'));

/** The columns the list reads of sandbox_messages. */
interface SandboxSummaryRow {
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

const summary = (r: SandboxSummaryRow) => ({
  object: 'sandbox_message' as const,
  id: r.id,
  email_id: r.email_id,
  from: r.from_header || r.mail_from,
  to: r.rcpt_to,
  subject: r.subject,
  dkim: dkimVerdict(r.dkim),
  created_at: new Date(r.created_at).toISOString(),
});

const addition = (route: Route): Route => ({ ...route, doc: route.doc && { ...route.doc, addition: true } });

export function sandboxRoutes(db: Db): Route[] {
  const find = async (accountId: string, id: string) => {
    const [row] = isUuid(id) ? await db.query<SandboxMessageRow>(`SELECT * FROM sandbox_messages WHERE id = $1 AND account_id = $2`, [id, accountId]) : [];
    if (!row) throw notFound('Sandbox message');
    return row;
  };
  return [
    addition(
      accountList<SandboxSummaryRow>(db, {
        url: '/sandbox/messages',
        table: 'sandbox_messages',
        columns: 'id, email_id, mail_from, rcpt_to, subject, from_header, dkim, created_at',
        view: (rows) => rows.map(summary),
        doc: { summary: 'Mail the sandbox captured instead of delivering it (POSTLINE_SANDBOX), newest first', item: object(SUMMARY) },
      }),
    ),
    {
      method: 'GET',
      url: '/sandbox/messages/:id',
      doc: {
        summary: 'One captured message, parsed: HTML, text, headers, attachments and the DKIM verdict',
        addition: true,
        params: { id: uuid() },
        response: {
          status: 200,
          schema: object({
            ...SUMMARY,
            mail_from: string(),
            html: nullable(string()),
            text: nullable(string()),
            headers: array(
              object({ name: string(), value: string({ description: 'Unfolded, its encoded words (RFC 2047) decoded for reading; /raw has it as sent.' }) }),
            ),
            attachments: array(object({ filename: nullable(string()), content_type: string(), size: integer() })),
            dkim_results: DKIM,
            size: integer(),
          }),
        },
      },
      async handler({ principal, params }) {
        const row = await find(principal.accountId, params.id!);
        const parsed = await PostalMime.parse(row.raw, { attachmentEncoding: 'arraybuffer' });
        return {
          body: {
            ...summary(row),
            mail_from: row.mail_from,
            html: parsed.html ?? null,
            text: parsed.text ?? null,
            headers: parsed.headers.map((h) => ({ name: h.originalKey ?? h.key, value: decodeWords(h.value) })),
            attachments: parsed.attachments.map((a) => ({
              filename: a.filename,
              content_type: a.mimeType,
              size: (a.content as ArrayBuffer).byteLength,
            })),
            dkim_results: row.dkim,
            size: row.raw.length,
          },
        };
      },
    },
    {
      method: 'GET',
      url: '/sandbox/messages/:id/raw',
      doc: {
        summary: 'One captured message exactly as it arrived (message/rfc822)',
        addition: true,
        params: { id: uuid() },
        response: { status: 200, contentType: 'message/rfc822', schema: string({ contentMediaType: 'message/rfc822' }) },
      },
      async handler({ principal, params }) {
        const row = await find(principal.accountId, params.id!);
        return { body: row.raw, headers: { 'content-type': 'message/rfc822', 'content-disposition': `attachment; filename="${row.id}.eml"` } };
      },
    },
  ];
}
