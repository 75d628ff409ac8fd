// GET /emails/receiving/:id/attachments: the attachments of one of the caller's received
// emails, in message order, each with a signed download URL. Paginated by attachment id
// (limit, after, before); without `limit` an email's attachments come in one page (up to 100).
import { notFound } from '../api/errors.js';
import { envelope, listOldestFirst, listDoc, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { attachmentWithUrl, RECEIVED_ATTACHMENT_COLUMNS, RECEIVED_ATTACHMENT_SCHEMA, type ReceivedAttachmentRow, type ReceivedLinks } from './received-view.js';

export function listReceivedAttachments(db: Db, links: () => Promise<ReceivedLinks>): Route {
  return {
    method: 'GET',
    url: '/emails/receiving/:id/attachments',
    doc: { ...listDoc("List a received email's attachments", RECEIVED_ATTACHMENT_SCHEMA, { defaultLimit: 100 }), params: { id: uuid() } },
    async handler({ principal, params, query }) {
      const page = parsePage(query, { defaultLimit: 100 });
      const email = await db.one(`SELECT id FROM received_emails WHERE id = $1 AND account_id = $2`, [params.id, principal.accountId]);
      if (!email) throw notFound('Email');
      const { rows, hasMore } = await listOldestFirst<ReceivedAttachmentRow>(db, {
        table: 'received_attachments',
        columns: RECEIVED_ATTACHMENT_COLUMNS,
        where: 'received_email_id = $1',
        params: [params.id],
        key: ['position'],
        page,
      });
      const resolved = await links();
      return {
        body: envelope(
          rows.map((row) => attachmentWithUrl(row, resolved)),
          hasMore,
        ),
      };
    },
  };
}
