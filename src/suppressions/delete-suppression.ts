// DELETE /suppressions/:suppression: takes an address off the caller's list (by id or address),
// so it can be sent to again. An entry that is not there is "Suppression not found".
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { deletedObject } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { KEY_SCHEMA, keyCondition } from './suppression-fields.js';
import { removeSuppressions } from './suppression-list.js';

export function deleteSuppression(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/suppressions/:suppression',
    doc: {
      summary: 'Remove a suppression, by id or address',
      params: { suppression: KEY_SCHEMA },
      response: { status: 200, schema: deletedObject('suppression') },
    },
    async handler({ principal, params }) {
      const key = keyCondition(params.suppression ?? '');
      const [row] = key ? await db.tx((q) => removeSuppressions(q, `account_id = $1 AND ${key.column} = $2`, [principal.accountId, key.value])) : [];
      if (!row) throw notFound('Suppression');
      return { body: { object: 'suppression', id: row.id, deleted: true } };
    },
  };
}
