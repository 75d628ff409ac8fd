// GET /emails/:id/raw: the message of one of the caller's emails as stored (message/rfc822), for
// a "download .eml": the bytes sent on the wire once signed (at accept, or by its first
// attempt), or an SMTP submission as prepared before signing. An email still to be composed
// (scheduled, or not yet attempted) has no message yet: 404 with that said.
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { accountEmailRow } from '../email-row/account-email.js';
import { type StoredMessageRow, storedMessageColumns, storedMessageOf } from '../email-row/stored-message.js';

export function getRawEmail(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails/:id/raw',
    doc: {
      summary: "An email's message as stored (message/rfc822)",
      description:
        'Signed as sent once it is; an SMTP submission not yet signed as prepared. 404 while it is still to be composed (at its first delivery attempt).',
      addition: true,
      params: { id: uuid() },
      response: { status: 200, contentType: 'message/rfc822', schema: string({ contentMediaType: 'message/rfc822' }) },
    },
    async handler({ principal, params }) {
      const row = await accountEmailRow<StoredMessageRow & { id: string }>(
        db,
        principal.accountId,
        params.id,
        `emails.id, ${storedMessageColumns('emails', true)}`,
      );
      const stored = storedMessageOf(row);
      if (stored.state === 'to_compose') throw notFound('Message (it is composed at its first delivery attempt)');
      return { body: stored.message, headers: { 'content-type': 'message/rfc822', 'content-disposition': `attachment; filename="${row.id}.eml"` } };
    },
  };
}
