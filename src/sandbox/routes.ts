// The sandbox's captured mail (POSTLINE_SANDBOX), like Mailpit shows it: the list (searched),
// one message parsed (HTML, text, headers, attachments, the DKIM verdict, its releases), and the
// raw message as it arrived; and Mailpit's actions on them, a file each: delete, attachment
// download, link check, release. Mounted only in sandbox mode; the key's account only.
// Postline's own routes.
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { array, constant, integer, nullable, object, SINGLE_LINE_TEXT, string, uuid } from '../api/schema.js';
import { type Db, likeLiteral } from '../db/database.js';
import type { DestinationPolicy } from '../egress/destination-policy.js';
import { decodeWords } from 'postal-mime';
import { findCaptured, parseCaptured, type SandboxSummaryRow } from './captured-message.js';
import { deleteAllCapturedMessages, deleteCapturedMessage } from './delete-messages.js';
import { downloadCapturedAttachment } from './download-attachment.js';
import { checkCapturedLinks } from './link-check.js';
import { type AcceptComposed, releaseCapturedMessage, sandboxSettings } from './release.js';

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

/** Mail released from a captured message (release.ts), as its page lists it. */
interface ReleaseRow {
  email_id: string;
  rcpt_to: string[];
  created_at: Date;
  last_event: string | null;
}

const SEARCH = string({
  maxLength: 998,
  pattern: SINGLE_LINE_TEXT,
  'x-message': 'be one line of text of at most 998 characters',
  description: 'Only messages whose subject, sender (From or the envelope) or a recipient contains this text (any case).',
});

/** `search` as one condition on sandbox_messages, numbered after the account's `$1`. */
const SEARCHED = `(subject ILIKE $2 OR from_header ILIKE $2 OR mail_from ILIKE $2 OR array_to_string(rcpt_to, E'\n') ILIKE $2)`;

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

interface SandboxDeps {
  /** POSTLINE_SANDBOX_RELEASE_URL; undefined: release is refused. */
  releaseUrl: string | undefined;
  /** POSTLINE_SANDBOX_LINK_CHECK_ALLOW_PRIVATE's egress rule, for the link check. */
  linkCheck: DestinationPolicy;
  /** The accept pipeline for a release (route-list.ts binds it). */
  acceptComposed: AcceptComposed;
}

export function sandboxRoutes(db: Db, deps: SandboxDeps): Route[] {
  const find = findCaptured.bind(null, db);
  return [
    sandboxSettings(deps.releaseUrl),
    {
      method: 'GET',
      url: '/sandbox/messages',
      doc: {
        ...listDoc('Mail the sandbox captured instead of delivering it (POSTLINE_SANDBOX), newest first', object(SUMMARY), { query: { search: SEARCH } }),
        addition: true,
      },
      async handler({ principal, query }) {
        const search = query.search?.trim();
        const { rows, hasMore } = await listPage<SandboxSummaryRow>(db, {
          table: 'sandbox_messages',
          columns: 'id, email_id, mail_from, rcpt_to, subject, from_header, dkim, created_at',
          where: search ? `account_id = $1 AND ${SEARCHED}` : 'account_id = $1',
          // The cursor row may not match the search (a page read before it changed): the account's is enough.
          cursorWhere: 'account_id = $1',
          params: search ? [principal.accountId, `%${likeLiteral(search)}%`] : [principal.accountId],
          page: parsePage(query),
        });
        return { body: envelope(rows.map(summary), hasMore) };
      },
    },
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
            attachments: array(
              object({
                index: integer({ minimum: 0, description: 'Its position: GET /sandbox/messages/:id/attachments/:index downloads it.' }),
                filename: nullable(string()),
                content_type: string(),
                size: integer(),
              }),
            ),
            dkim_results: DKIM,
            size: integer(),
            releases: array(
              object({
                email_id: uuid('The email the release is (GET /emails/:id).'),
                to: array(string()),
                last_event: nullable(string({ description: "The email's last event: `delivered` once the relay took it." })),
                created_at: string({ format: 'date-time' }),
              }),
              { description: 'Where this message was released to (POST /sandbox/messages/:id/release), oldest first.' },
            ),
          }),
        },
      },
      async handler({ principal, params }) {
        const row = await find(principal.accountId, params.id!);
        const [parsed, releases] = await Promise.all([
          parseCaptured(row),
          db.query<ReleaseRow>(
            `SELECT r.email_id, r.rcpt_to, r.created_at, e.last_event FROM sandbox_releases r JOIN emails e ON e.id = r.email_id
             WHERE r.sandbox_message_id = $1 AND r.account_id = $2 ORDER BY r.created_at, r.email_id`,
            [row.id, principal.accountId],
          ),
        ]);
        return {
          body: {
            ...summary(row),
            mail_from: row.mail_from,
            html: parsed.html ?? null,
            text: parsed.text ?? null,
            headers: parsed.headers.map((h) => ({ name: h.originalKey ?? h.key, value: decodeWords(h.value) })),
            attachments: parsed.attachments.map((a, index) => ({
              index,
              filename: a.filename,
              content_type: a.mimeType,
              size: (a.content as ArrayBuffer).byteLength,
            })),
            dkim_results: row.dkim,
            size: row.raw.length,
            releases: releases.map((r) => ({
              email_id: r.email_id,
              to: r.rcpt_to,
              last_event: r.last_event,
              created_at: new Date(r.created_at).toISOString(),
            })),
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
    downloadCapturedAttachment(db),
    deleteCapturedMessage(db),
    deleteAllCapturedMessages(db),
    checkCapturedLinks(db, deps.linkCheck),
    releaseCapturedMessage(db, deps.releaseUrl, deps.acceptComposed),
  ];
}
