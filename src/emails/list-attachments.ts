// GET /emails/:id/attachments: the attachments of one of the caller's emails, in the order
// they were given. Paginated like every list (limit, after, before by attachment id); without
// `limit` an email's attachments come in one page (up to 100).
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { envelope, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { ATTACHMENT_COLUMNS, attachmentSummary, type DownloadLinks } from './attachment-view.js';

export function listAttachments(db: Db, links: () => Promise<DownloadLinks>): Route {
  return {
    method: 'GET',
    url: '/emails/:id/attachments',
    async handler({ principal, params, query }) {
      const page = parsePage(query, { defaultLimit: 100 });
      const email = isUuid(params.id)
        ? await db.one(`SELECT id FROM emails WHERE id = $1 AND account_id = $2`, [params.id, principal.accountId])
        : undefined;
      if (!email) throw notFound('Email');
      const args: unknown[] = [params.id];
      let cursor = '';
      const backwards = page.before !== undefined;
      if (page.after ?? page.before) {
        args.push(page.after ?? page.before);
        cursor = `AND position ${backwards ? '<' : '>'} (SELECT position FROM email_attachments WHERE id = $2 AND email_id = $1)`;
      }
      args.push(page.limit + 1);
      const rows = await db.query(
        `SELECT ${ATTACHMENT_COLUMNS} FROM email_attachments WHERE email_id = $1 ${cursor}
          ORDER BY position ${backwards ? 'DESC' : 'ASC'} LIMIT $${args.length}`,
        args,
      );
      const hasMore = rows.length > page.limit;
      const pageRows = rows.slice(0, page.limit);
      if (backwards) pageRows.reverse();
      const resolved = await links();
      return { body: envelope(pageRows.map((row) => attachmentSummary(row, resolved)), hasMore) };
    },
  };
}
