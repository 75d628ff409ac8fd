// GET /suppressions/:suppression: one entry of the caller's list, by id or by address.
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { KEY_SCHEMA, keyCondition } from './suppression-fields.js';
import { SUPPRESSION_COLUMNS, SUPPRESSION_SCHEMA, type SuppressionRow, suppressionDetail } from './suppression-view.js';

export function getSuppression(db: Db): Route {
  return {
    method: 'GET',
    url: '/suppressions/:suppression',
    doc: { summary: 'Retrieve a suppression, by id or address', params: { suppression: KEY_SCHEMA }, response: { status: 200, schema: SUPPRESSION_SCHEMA } },
    async handler({ principal, params }) {
      const key = keyCondition(params.suppression ?? '');
      const row = key
        ? await db.one<SuppressionRow>(`SELECT ${SUPPRESSION_COLUMNS} FROM suppressions WHERE account_id = $1 AND ${key.column} = $2`, [
            principal.accountId,
            key.value,
          ])
        : undefined;
      if (!row) throw notFound('Suppression');
      return { body: suppressionDetail(row) };
    },
  };
}
