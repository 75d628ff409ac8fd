// GET /emails/receiving: the account's received emails, newest first, keyset-paginated like
// every list; without `limit` a page holds 100 (Resend returns everything on its older lists,
// domains here do the same). Each item carries its attachment list (one query for the page).
import { envelope, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { attachmentsOf, RECEIVED_COLUMNS, receivedSummary } from './received-view.js';

export function listReceived(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails/receiving',
    async handler({ principal, query }) {
      const { rows, hasMore } = await listPage(db, {
        table: 'received_emails',
        columns: RECEIVED_COLUMNS,
        where: 'account_id = $1',
        params: [principal.accountId],
        page: parsePage(query, { defaultLimit: 100 }),
      });
      const attachments = await attachmentsOf(db, rows.map((r) => r.id));
      return { body: envelope(rows.map((row) => receivedSummary(row, attachments.get(row.id)!)), hasMore) };
    },
  };
}
