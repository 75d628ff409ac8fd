// GET /emails: the account's emails, newest first, always paginated (limit default 20).
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { EMAIL_SUMMARY_SCHEMA, emailSummary, SUMMARY_COLUMNS } from './email-view.js';

export function listEmails(db: Db): Route {
  return accountList(db, {
    url: '/emails',
    table: 'emails',
    columns: SUMMARY_COLUMNS,
    view: (rows) => rows.map(emailSummary),
    doc: { summary: 'List sent emails', item: EMAIL_SUMMARY_SCHEMA },
  });
}
