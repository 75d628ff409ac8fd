// GET /emails/:id/attachments/:attachment_id: one attachment of one of the caller's emails.
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { accountEmailOr404 } from '../email-row/account-email.js';
import { ATTACHMENT_COLUMNS, ATTACHMENT_SCHEMA, type AttachmentRow, attachmentDetail, type DownloadLinks } from './attachment-view.js';

export function getAttachment(db: Db, links: () => Promise<DownloadLinks>): Route {
  return {
    method: 'GET',
    url: '/emails/:id/attachments/:attachment_id',
    doc: { summary: "Retrieve an email's attachment", params: { id: uuid(), attachment_id: uuid() }, response: { status: 200, schema: ATTACHMENT_SCHEMA } },
    async handler({ principal, params }) {
      const row = await db.one<AttachmentRow>(`SELECT ${ATTACHMENT_COLUMNS} FROM email_attachments WHERE id = $1 AND email_id = $2 AND account_id = $3`, [
        params.attachment_id,
        params.id,
        principal.accountId,
      ]);
      if (row) return { body: attachmentDetail(row, await links()) };
      await accountEmailOr404(db, principal.accountId, params.id);
      throw notFound('Attachment');
    },
  };
}
