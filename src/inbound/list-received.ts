// GET /emails/receiving: the account's received emails, newest first, keyset-paginated like
// every list; without `limit` a page holds 100 (Resend returns everything on its older lists,
// domains here do the same). Each item carries its attachment list (one query for the page).
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { attachmentsOf, RECEIVED_COLUMNS, RECEIVED_SUMMARY_SCHEMA, type ReceivedEmailRow, receivedSummary } from './received-view.js';

export function listReceived(db: Db): Route {
  return accountList<ReceivedEmailRow>(db, {
    url: '/emails/receiving',
    table: 'received_emails',
    columns: RECEIVED_COLUMNS,
    defaultLimit: 100,
    doc: { summary: 'List received emails', item: RECEIVED_SUMMARY_SCHEMA },
    async view(rows) {
      const attachments = await attachmentsOf(
        db,
        rows.map((r) => r.id),
      );
      return rows.map((row) => receivedSummary(row, attachments.get(row.id)!));
    },
  });
}
