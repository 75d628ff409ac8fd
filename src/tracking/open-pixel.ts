// GET /t/o/:email_id/:signature: the open-tracking pixel (no API key: the signature is the
// credential). A valid one records `email.opened` and answers a 1×1 transparent GIF that no
// cache keeps, so every open reaches us; anything else is 404 and records nothing.
// HEAD (link checkers, scanners asking whether the image exists) gets the same answer and
// records nothing: nobody looked at the image.
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Route } from '../api/route.js';
import { string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import type { UrlSigner } from '../signed-urls/url-signing.js';
import { emailExists, recordEngagement } from './record-engagement.js';

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export function openPixel(db: Db, signer: () => Promise<UrlSigner>): Route {
  return {
    method: 'GET',
    url: '/t/o/:email_id/:signature',
    access: 'public',
    doc: {
      summary: 'The open-tracking pixel of an email (records email.opened)',
      addition: true,
      // A URL in mail, not an API call: a mangled id is not found, as a forged link is, rather than refused as malformed.
      params: { email_id: string({ description: 'The id of the email the URL was made for; anything else is not found.' }) },
      response: { status: 200, contentType: 'image/gif', description: 'A 1×1 transparent GIF.' },
    },
    async handler({ params, method }) {
      const emailId = params.email_id!;
      if (!isUuid(emailId) || !(await signer()).verify(params.signature!, emailId)) throw notFound('Email');
      const found = method === 'HEAD' ? await emailExists(db, emailId) : await recordEngagement(db, emailId, { type: 'email.opened', extra: {} });
      if (!found) throw notFound('Email');
      return {
        status: 200,
        body: PIXEL,
        headers: {
          'content-type': 'image/gif',
          'cache-control': 'no-store, no-cache, must-revalidate, private, max-age=0',
          pragma: 'no-cache',
          expires: '0',
        },
      };
    },
  };
}
