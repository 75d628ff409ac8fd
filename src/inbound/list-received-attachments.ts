// GET /emails/receiving/:id/attachments: the attachments of one of the caller's received
// emails, in message order, each with a signed download URL. Paginated by attachment id
// (limit, after, before); without `limit` an email's attachments come in one page (up to 100).
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import { envelope, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { attachmentWithUrl, RECEIVED_ATTACHMENT_COLUMNS, type ReceivedLinks } from './received-view.js';

export function listReceivedAttachments(db: Db, links: () => Promise<ReceivedLinks>): Route {
  return {
    method: 'GET',
    url: '/emails/receiving/:id/attachments',
    async handler({ principal, params, query }) {
      const page = parsePage(query, { defaultLimit: 100 });
      const email = isUuid(params.id)
        ? await db.one(`SELECT id FROM received_emails WHERE id = $1 AND account_id = $2`, [params.id, principal.accountId])
        : undefined;
      if (!email) throw notFound('Email');
      const args: unknown[] = [params.id];
      let cursor = '';
      const backwards = page.before !== undefined;
      if (page.after ?? page.before) {
        args.push(page.after ?? page.before);
        cursor = `AND position ${backwards ? '<' : '>'} (SELECT position FROM received_attachments WHERE id = $2 AND received_email_id = $1)`;
      }
      args.push(page.limit + 1);
      const rows = await db.query(
        `SELECT ${RECEIVED_ATTACHMENT_COLUMNS} FROM received_attachments WHERE received_email_id = $1 ${cursor}
          ORDER BY position ${backwards ? 'DESC' : 'ASC'} LIMIT $${args.length}`,
        args,
      );
      const hasMore = rows.length > page.limit;
      const pageRows = rows.slice(0, page.limit);
      if (backwards) pageRows.reverse();
      const resolved = await links();
      return { body: envelope(pageRows.map((row) => attachmentWithUrl(row, resolved)), hasMore) };
    },
  };
}
