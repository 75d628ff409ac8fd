// GET /emails/:id: one email of the caller's account; any other id is "Email not found".
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { accountEmailRow } from '../email-row/account-email.js';
import { DETAIL_COLUMNS, EMAIL_SCHEMA, type EmailDetailRow, emailDetail } from './email-view.js';
import { bodiesOfSubmitted } from './submitted-message.js';

export function getEmail(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails/:id',
    doc: { summary: 'Retrieve an email', params: { id: uuid() }, response: { status: 200, schema: EMAIL_SCHEMA } },
    async handler({ principal, params }) {
      const row = await accountEmailRow<EmailDetailRow>(db, principal.accountId, params.id, DETAIL_COLUMNS);
      // A small SMTP submission keeps its html and text only in its message (0020).
      if (row.bodies_message) Object.assign(row, await bodiesOfSubmitted(row.bodies_message));
      return { body: emailDetail(row) };
    },
  };
}
