import { envelope, listDoc, listPage, parsePage } from '../../api/pagination.js';
import type { Route } from '../../api/route.js';
import { oneOfValues } from '../../api/schema.js';
import type { Db } from '../../db/database.js';
import { type ContactImportRow, IMPORT_COLUMNS, IMPORT_SCHEMA, IMPORT_STATUSES, importView, VISIBLE } from './import-view.js';

export function listImports(db: Db): Route {
  return {
    method: 'GET',
    url: '/contacts/imports',
    doc: listDoc('List contact imports', IMPORT_SCHEMA, { query: { status: oneOfValues(IMPORT_STATUSES, { description: 'Only those in this state.' }) } }),
    async handler({ principal, query }) {
      const page = parsePage(query);
      const { status } = query;
      const { rows, hasMore } = await listPage<ContactImportRow>(db, {
        table: 'contact_imports',
        columns: IMPORT_COLUMNS,
        where: status ? `account_id = $1 AND ${VISIBLE} AND status = $2` : `account_id = $1 AND ${VISIBLE}`,
        params: status ? [principal.accountId, status] : [principal.accountId],
        page,
      });
      return { body: envelope(rows.map(importView), hasMore) };
    },
  };
}
