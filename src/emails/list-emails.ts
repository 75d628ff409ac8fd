// GET /emails: the account's emails, newest first, always paginated (limit default 20).
import { envelope, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { emailSummary, SUMMARY_COLUMNS } from './email-view.js';

export function listEmails(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails',
    async handler({ principal, query }) {
      const { rows, hasMore } = await listPage(db, {
        table: 'emails',
        columns: SUMMARY_COLUMNS,
        where: 'account_id = $1',
        params: [principal.accountId],
        page: parsePage(query),
      });
      return { body: envelope(rows.map(emailSummary), hasMore) };
    },
  };
}
