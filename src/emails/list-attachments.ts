// GET /emails/:id/attachments: the attachments of one of the caller's emails, in the order
// they were given. Paginated like every list (limit, after, before by attachment id); without
// `limit` an email's attachments come in one page (up to 100).
import { envelope, listOldestFirst, listDoc, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { accountEmailOr404 } from '../email-row/account-email.js';
import { ATTACHMENT_COLUMNS, ATTACHMENT_SUMMARY_SCHEMA, type AttachmentRow, attachmentSummary, type DownloadLinks } from './attachment-view.js';

export function listAttachments(db: Db, links: () => Promise<DownloadLinks>): Route {
  return {
    method: 'GET',
    url: '/emails/:id/attachments',
    doc: { ...listDoc("List an email's attachments", ATTACHMENT_SUMMARY_SCHEMA, { defaultLimit: 100 }), params: { id: uuid() } },
    async handler({ principal, params, query }) {
      const page = parsePage(query, { defaultLimit: 100 });
      const emailId = await accountEmailOr404(db, principal.accountId, params.id);
      const { rows, hasMore } = await listOldestFirst<AttachmentRow>(db, {
        table: 'email_attachments',
        columns: ATTACHMENT_COLUMNS,
        where: 'email_id = $1',
        params: [emailId],
        key: ['position'],
        page,
      });
      const resolved = await links();
      return {
        body: envelope(
          rows.map((row) => attachmentSummary(row, resolved)),
          hasMore,
        ),
      };
    },
  };
}
