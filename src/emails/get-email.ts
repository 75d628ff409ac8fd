// GET /emails/:id: one email of the caller's account; any other id is "Email not found".
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { DETAIL_COLUMNS, EMAIL_SCHEMA, emailDetail } from './email-view.js';
import { bodiesOfSubmitted } from './submitted-message.js';

export function getEmail(db: Db): Route {
  return {
    method: 'GET',
    url: '/emails/:id',
    doc: { summary: 'Retrieve an email', response: { status: 200, schema: EMAIL_SCHEMA } },
    async handler({ principal, params }) {
      const row = isUuid(params.id)
        ? await db.one(`SELECT ${DETAIL_COLUMNS} FROM emails WHERE id = $1 AND account_id = $2`, [params.id, principal.accountId])
        : undefined;
      if (!row) throw notFound('Email');
      // A small SMTP submission keeps its html and text only in its message (0020).
      if (row.bodies_message) Object.assign(row, await bodiesOfSubmitted(row.bodies_message as Buffer));
      return { body: emailDetail(row) };
    },
  };
}
