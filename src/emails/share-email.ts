// Sharing an email (the SDK's emails.share, Resend's "Share Email"): POST /emails/:id/share
// answers a signed, expiring link (default 48 hours) to a read-only page of one of the
// caller's emails, which anyone holding the link may open without a key (the signature is the
// credential, as for downloads: a wrong one reads as not found, an expired one is refused
// with 403). The page (/shared/emails/:id) shows the envelope, escaped, and frames the body
// (/shared/emails/:id/body) under the policy made for mail (mail-content-policy.ts: sandboxed,
// no scripts, no remote content), so the email's HTML never runs as this origin's.
import { notFound, validation } from '../api/errors.js';
import { restTimestamp } from '../api/format.js';
import type { Route } from '../api/route.js';
import { constant, input, object, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { accountEmailOr404 } from '../email-row/account-email.js';
import { checkDownloadUrl } from '../signed-urls/signed-download.js';
import { SIGNED_URL_QUERY, type UrlSigner } from '../signed-urls/url-signing.js';
import { DETAIL_COLUMNS, type EmailDetailRow, emailDetail } from './email-view.js';
import { mailContentPolicy } from './mail-content-policy.js';
import { bodiesOfSubmitted } from './submitted-message.js';
import { escapeHtml } from '../message/escape-html.js';

const MINUTE = 60_000;
const UNIT_MS: Record<string, number> = { minute: MINUTE, hour: 60 * MINUTE, day: 24 * 60 * MINUTE, week: 7 * 24 * 60 * MINUTE };
const UNIT_OF: Record<string, string> = { m: 'minute', min: 'minute', h: 'hour', hr: 'hour', d: 'day', w: 'week' };
const DEFAULT_MS = 48 * UNIT_MS.hour!;
const MAX_MS = 30 * UNIT_MS.day!;
const UNITS = ['m', 'min', 'minutes?', 'h', 'hr', 'hours?', 'd', 'days?', 'w', 'weeks?'];
const EXPIRES_IN = new RegExp(`^(\\d{1,6})\\s*(${UNITS.join('|')})$`, 'i');
/** EXPIRES_IN as a JSON Schema pattern, which has no flags: each letter in either case. */
const anyCase = (word: string) => word.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
const EXPIRES_IN_PATTERN = `^\\s*\\d{1,6}\\s*(?:${UNITS.map(anyCase).join('|')})\\s*$`;
const DURATION = 'be a duration from 1 minute to 30 days, such as "30 minutes", "2 hours" or "7 days"';

/** A body of POST /emails/:id/share once it passed its schema. */
interface ShareBody {
  expires_in?: string;
}

/** "2 hours", "30 minutes", "7d" (the schema checked the form): how long the link works, ms (1 minute to 30 days). */
function expiresInMs(value: string | undefined): number {
  if (value === undefined) return DEFAULT_MS;
  const match = EXPIRES_IN.exec(value.trim());
  const unit = match && (UNIT_OF[match[2]!.toLowerCase()] ?? match[2]!.toLowerCase().replace(/s$/, ''));
  const ms = match ? Number(match[1]) * UNIT_MS[unit!]! : Number.NaN;
  if (!(ms >= MINUTE && ms <= MAX_MS)) throw validation(`The \`expires_in\` field must ${DURATION}.`);
  return ms;
}

const PAGE_HEADERS = {
  'cache-control': 'private, no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
};
/** The page itself: its own inline styles and the framed body, nothing else. */
const PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function shareEmail(db: Db, links: () => Promise<{ publicUrl: string; signer: UrlSigner }>): Route {
  return {
    method: 'POST',
    url: '/emails/:id/share',
    doc: {
      summary: 'Share email',
      description:
        'A link to a read-only page of the email that works without an API key until it expires (`expires_in`: 1 minute to 30 days; default 48 hours).',
      params: { id: uuid() },
      body: input({
        expires_in: string({
          pattern: EXPIRES_IN_PATTERN,
          'x-message': DURATION,
          description: 'How long the link works: "30 minutes", "2 hours", "7 days" (also 30m, 2h, 7d, 1w).',
        }),
      }),
      response: { status: 200, schema: object({ object: constant('email'), id: uuid(), url: string({ format: 'uri' }) }) },
    },
    async handler({ principal, params, body }) {
      const ms = expiresInMs((body as ShareBody).expires_in);
      const emailId = await accountEmailOr404(db, principal.accountId, params.id);
      const { publicUrl, signer } = await links();
      const expires = String(Math.ceil((Date.now() + ms) / 1000));
      const signature = signer.sign('share', emailId, expires);
      return { body: { object: 'email', id: emailId, url: `${publicUrl}/shared/emails/${emailId}?expires=${expires}&signature=${signature}` } };
    },
  };
}

/** The email a shared link names, or 404 (a wrong link) / 403 (an expired one). */
async function sharedEmail(db: Db, signer: () => Promise<UrlSigner>, id: string | undefined, query: Record<string, string | undefined>) {
  checkDownloadUrl(await signer(), { id, query, scope: 'share', what: 'Email', expired: 'This shared link has expired; ask for a new one.' });
  const row = await db.one<EmailDetailRow>(`SELECT ${DETAIL_COLUMNS} FROM emails WHERE id = $1`, [id]);
  if (!row) throw notFound('Email');
  if (row.bodies_message) Object.assign(row, await bodiesOfSubmitted(row.bodies_message));
  return emailDetail(row);
}

function page(email: ReturnType<typeof emailDetail>, bodyUrl: string): string {
  const line = (name: string, value: string | null) => (value ? `<tr><th>${name}</th><td>${escapeHtml(value)}</td></tr>` : '');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(email.subject || '(no subject)')}</title>
<style>body{margin:0;font:14px/1.4 system-ui,sans-serif;color:#111;background:#f6f6f6}header{padding:16px 20px;background:#fff;border-bottom:1px solid #ddd}
h1{font-size:18px;margin:0 0 8px}th{text-align:left;color:#666;font-weight:normal;padding-right:12px;vertical-align:top}iframe{display:block;width:100%;height:calc(100vh - 140px);border:0;background:#fff}</style>
</head><body><header><h1>${escapeHtml(email.subject || '(no subject)')}</h1><table>
${line('From', email.from)}${line('To', email.to.join(', '))}${line('Cc', email.cc?.join(', ') ?? null)}${line('Date', restTimestamp(email.created_at))}
</table></header><iframe sandbox title="Message" src="${escapeHtml(bodyUrl)}"></iframe></body></html>`;
}

export function sharedEmailRoutes(db: Db, signer: () => Promise<UrlSigner>): Route[] {
  const doc = (summary: string, description: string) => ({
    summary,
    description,
    addition: true as const,
    tags: ['emails'],
    params: { id: uuid() },
    query: SIGNED_URL_QUERY,
    requiredQuery: ['expires', 'signature'],
    response: { status: 200, contentType: 'text/html', description: 'An HTML page.' },
  });
  return [
    {
      method: 'GET',
      url: '/shared/emails/:id',
      access: 'public',
      doc: doc('A shared email, through the link emails.share gives', "The email's sender, recipients, subject and date, and its body in a sandboxed frame."),
      async handler({ params, query }) {
        const email = await sharedEmail(db, signer, params.id, query);
        const bodyUrl = `/shared/emails/${params.id}/body?expires=${query.expires}&signature=${query.signature}`;
        return { body: page(email, bodyUrl), headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_POLICY, ...PAGE_HEADERS } };
      },
    },
    {
      method: 'GET',
      url: '/shared/emails/:id/body',
      access: 'public',
      doc: doc(
        "A shared email's body, framed by its page",
        'The HTML part (or the text part, escaped) under a sandboxing policy made for mail: no scripts, no remote content.',
      ),
      async handler({ params, query }) {
        const email = await sharedEmail(db, signer, params.id, query);
        const html = email.html ?? `<pre style="white-space:pre-wrap;font:13px/1.4 monospace">${escapeHtml(email.text ?? '')}</pre>`;
        return { body: html, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': mailContentPolicy(false), ...PAGE_HEADERS } };
      },
    },
  ];
}
