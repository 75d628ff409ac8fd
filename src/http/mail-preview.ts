// The dashboard's mail preview as a document of its own: POST /dashboard/preview answers the
// HTML it is given, under the Content-Security-Policy made for mail (emails/mail-content-policy.ts:
// `sandbox`, inline styles, no scripts, remote images only when asked for). The dashboard
// submits a form into an <iframe sandbox> (web/src/mail-viewer.tsx). A srcdoc frame would
// inherit the dashboard's own policy, which would then have to allow what mail needs; served
// from here, the dashboard's policy stays strict (dashboard.ts).
//
// A form cannot send headers, so the session's anti-forgery token comes as a field; without the
// session and its token nothing is rendered: another site cannot make Postline show its HTML.
// The HTML travels in the request, so any node answers it (no state between requests).
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../api/errors.js';
import { mailContentPolicy } from '../emails/mail-content-policy.js';
import { type Sessions, sessionCookie } from '../users/sessions.js';

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
      .header('content-security-policy', mailContentPolicy(form.remote === 'true'))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(form.html);
  });
}
