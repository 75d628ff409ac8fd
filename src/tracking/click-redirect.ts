// GET /t/c/:email_id/:signature?url=…: a tracked link (no API key: the signature is the
// credential). The signature covers the email id and the destination together, so a link can
// neither be forged nor pointed anywhere but where the email's html pointed: a valid one
// records `email.clicked` and redirects (302) there; anything else is 404 and never redirects.
// HEAD (link previews, scanners) gets the same redirect and records nothing: nobody clicked.
// The click's ipAddress is the client's, or behind a trusted proxy the one it forwarded
// (POSTLINE_TRUST_PROXY).
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Route } from '../api/route.js';
import { string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import type { UrlSigner } from '../signed-urls/url-signing.js';
import { emailExists, recordEngagement } from './record-engagement.js';

export function clickRedirect(db: Db, signer: () => Promise<UrlSigner>): Route {
  return {
    method: 'GET',
    url: '/t/c/:email_id/:signature',
    access: 'public',
    doc: {
      summary: 'A tracked link of an email (records email.clicked, then redirects)',
      addition: true,
      // A URL in mail, not an API call: a mangled id is not found, as a forged link is, rather than refused as malformed.
      params: { email_id: string({ description: 'The id of the email the URL was made for; anything else is not found.' }) },
      query: { url: string({ description: 'The destination, as the signature covers it.' }) },
      requiredQuery: ['url'],
      response: { status: 302, description: 'To the destination.', headers: { location: string({ format: 'uri' }) } },
    },
    async handler({ params, query, headers, ip, method }) {
      const emailId = params.email_id!;
      const url = query.url;
      if (!isUuid(emailId) || typeof url !== 'string' || !(await signer()).verify(params.signature!, emailId, url)) throw notFound('Link');
      const click = { ipAddress: ip, link: url, timestamp: new Date().toISOString(), userAgent: String(headers['user-agent'] ?? '') };
      const found = method === 'HEAD' ? await emailExists(db, emailId) : await recordEngagement(db, emailId, { type: 'email.clicked', extra: { click } });
      if (!found) throw notFound('Link');
      return {
        status: 302,
        body: `Redirecting to ${url}`,
        headers: { location: url, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
      };
    },
  };
}
