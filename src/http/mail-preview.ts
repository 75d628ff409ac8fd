// The dashboard's mail preview as a document of its own: POST /dashboard/preview answers the
// HTML it is given, under a Content-Security-Policy made for mail (inline styles, images only
// from the message itself unless remote ones are asked for, no scripts) with `sandbox`, so the
// document has no origin and runs nothing even when opened outside its frame. The dashboard
// submits a form into an <iframe sandbox> (web/src/mail-viewer.tsx). A srcdoc frame would
// inherit the dashboard's own policy, which would then have to allow what mail needs; served
// from here, the dashboard's policy stays strict (dashboard.ts).
//
// A form cannot send headers, so the session's anti-forgery token comes as a field; without the
// session and its token nothing is rendered: another site cannot make Postline show its HTML.
// The HTML travels in the request, so any node answers it (no state between requests).
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../api/errors.js';
import { type Sessions, sessionCookie } from '../users/sessions.js';

/** The preview's policy: what a mail reader allows, with remote content only on request. */
function previewPolicy(remote: boolean): string {
  const anywhere = remote ? ' https: http:' : '';
  return [
    'sandbox',
    "default-src 'none'",
    `style-src 'unsafe-inline'${anywhere}`,
    `img-src data: cid:${anywhere}`,
    `font-src${anywhere || " 'none'"}`,
    "frame-ancestors 'self'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export async function mailPreview(app: FastifyInstance, { sessions }: { sessions?: Sessions }): Promise<void> {
  // Encapsulated: only this route reads forms (URLSearchParams does the decoding).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.post('/dashboard/preview', { config: { dashboardFile: true } }, async (req, reply) => {
    const cookie = sessionCookie(req.headers.cookie);
    const user = cookie && sessions ? await sessions.authenticate(cookie) : undefined;
    if (!cookie || !user) throw new ApiError('invalid_session', 'Your session has ended: sign in again.');
    const form = (req.body ?? {}) as Record<string, unknown>;
    if (!sessions!.csrfMatches(cookie, form.csrf_token as string | undefined)) {
      throw new ApiError('invalid_csrf_token', "This preview needs your session's anti-forgery token.");
    }
    if (typeof form.html !== 'string') throw new ApiError('validation_error', 'The `html` field is missing.');
    return reply
      .header('content-security-policy', previewPolicy(form.remote === 'true'))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(form.html);
  });
}
