// GET /contacts/imports/:id: the import with its counts so far and its first failed rows.
import { notFound } from '../../api/errors.js';
import type { Route } from '../../api/route.js';
import { uuid } from '../../api/schema.js';
import type { Db } from '../../db/database.js';
import { type ContactImportDetailRow, IMPORT_COLUMNS, IMPORT_DETAIL_SCHEMA, importDetail, VISIBLE } from './import-view.js';

export function getImport(db: Db): Route {
  return {
    method: 'GET',
    url: '/contacts/imports/:id',
    doc: {
      summary: 'Retrieve a contact import, its counts and first failed rows',
      params: { id: uuid() },
      response: { status: 200, schema: IMPORT_DETAIL_SCHEMA },
    },
    async handler({ principal, params }) {
      const id = params.id!;
      const row = await db.one<ContactImportDetailRow>(
        `SELECT ${IMPORT_COLUMNS}, errors FROM contact_imports WHERE id = $1 AND account_id = $2 AND ${VISIBLE}`,
        [id.toLowerCase(), principal.accountId],
      );
      if (!row) throw notFound('Contact import');
      return { body: importDetail(row) };
    },
  };
}
