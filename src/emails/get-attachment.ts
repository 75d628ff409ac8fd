// GET /emails/:id/attachments/:attachment_id: one attachment of one of the caller's emails.
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { ATTACHMENT_COLUMNS, ATTACHMENT_SCHEMA, attachmentDetail, type DownloadLinks } from './attachment-view.js';

export function getAttachment(db: Db, links: () => Promise<DownloadLinks>): Route {
  return {
    method: 'GET',
    url: '/emails/:id/attachments/:attachment_id',
    doc: { summary: "Retrieve an email's attachment", response: { status: 200, schema: ATTACHMENT_SCHEMA } },
    async handler({ principal, params }) {
      if (!isUuid(params.id)) throw notFound('Email');
      const row = isUuid(params.attachment_id)
        ? await db.one(`SELECT ${ATTACHMENT_COLUMNS} FROM email_attachments WHERE id = $1 AND email_id = $2 AND account_id = $3`, [
            params.attachment_id,
            params.id,
            principal.accountId,
          ])
        : undefined;
      if (row) return { body: attachmentDetail(row, await links()) };
      const email = await db.one(`SELECT id FROM emails WHERE id = $1 AND account_id = $2`, [params.id, principal.accountId]);
      throw notFound(email ? 'Attachment' : 'Email');
    },
  };
}
