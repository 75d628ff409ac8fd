// GET /templates: the account's templates, newest first, always paginated (limit default 20).
import { envelope, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { SUMMARY_COLUMNS, templateSummary } from './template-view.js';

export function listTemplates(db: Db): Route {
  return {
    method: 'GET',
    url: '/templates',
    async handler({ principal, query }) {
      const { rows, hasMore } = await listPage(db, {
        table: 'templates',
        columns: SUMMARY_COLUMNS,
        where: 'account_id = $1',
        params: [principal.accountId],
        page: parsePage(query),
      });
      return { body: envelope(rows.map(templateSummary), hasMore) };
    },
  };
}
