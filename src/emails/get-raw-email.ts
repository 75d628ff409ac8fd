// GET /emails/:id/raw: the message of one of the caller's emails as stored (message/rfc822), for
// a "download .eml": the bytes sent on the wire once signed (at accept, or by its first
// attempt), or an SMTP submission as prepared before signing. An email still to be composed
// (scheduled, or not yet attempted) has no message yet: 404 with that said.
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Route } from '../api/route.js';
import { string } from '../api/schema.js';
import type { Db } from '../db/database.js';
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
      response: { status: 200, contentType: 'message/rfc822', schema: string({ contentMediaType: 'message/rfc822' }) },
    },
    async handler({ principal, params }) {
      const row = isUuid(params.id)
        ? await db.one<StoredMessageRow & { id: string }>(
            `SELECT e.id, ${storedMessageColumns('e', true)} FROM emails e WHERE e.id = $1 AND e.account_id = $2`,
            [params.id, principal.accountId],
          )
        : undefined;
      if (!row) throw notFound('Email');
      const stored = storedMessageOf(row);
      if (stored.state === 'to_compose') throw notFound('Message (it is composed at its first delivery attempt)');
      return { body: stored.message, headers: { 'content-type': 'message/rfc822', 'content-disposition': `attachment; filename="${row.id}.eml"` } };
    },
  };
}
