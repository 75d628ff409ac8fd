// GET /emails: the account's emails, newest first, always paginated (limit default 20), as
// Resend lists them; Postline adds filters (email-filters.ts). A cursor (after/before) is any
// email of the account: one that no longer matches the filters (its last_event moved on) still
// marks where the page starts.
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { EMAIL_FILTERS_QUERY, parseEmailFilters } from './email-filters.js';
import { EMAIL_SUMMARY_SCHEMA, type EmailSummaryRow, emailSummary, SUMMARY_COLUMNS } from './email-view.js';

export function listEmails(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails',
    doc: {
      ...listDoc('List sent emails', EMAIL_SUMMARY_SCHEMA, { query: EMAIL_FILTERS_QUERY }),
      description: 'The filters (last_event, from, to, subject, tag, created_after, created_before) are Postline additions; they combine with AND.',
    },
    async handler({ principal, query }) {
      const page = parsePage(query);
      const filters = parseEmailFilters(query, 1);
      const { rows, hasMore } = await listPage<EmailSummaryRow>(db, {
        table: 'emails',
        columns: SUMMARY_COLUMNS,
        where: ['account_id = $1', ...filters.conditions].join(' AND '),
        cursorWhere: 'account_id = $1',
        params: [principal.accountId, ...filters.params],
        page,
      });
      return { body: envelope(rows.map(emailSummary), hasMore) };
    },
  };
}
