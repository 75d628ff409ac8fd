// POST /suppressions {email}: puts an address on the caller's list (origin `manual`).
// Adding an address that is already listed answers with its existing id.
import type { Route } from '../api/route.js';
import { input, objectId } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { ADDRESS_SCHEMA, parseAddress } from './suppression-fields.js';
import { addSuppressions } from './suppression-list.js';

export function addSuppression(db: Db): Route {
  return {
    method: 'POST',
    url: '/suppressions',
    doc: {
      summary: 'Suppress an address',
      body: input({ email: ADDRESS_SCHEMA }, ['email']),
      response: { status: 201, schema: objectId('suppression') },
    },
    async handler({ principal, body }) {
      const email = parseAddress((body as { email: string }).email, 'email');
      const ids = await db.tx((q) => addSuppressions(q, [{ accountId: principal.accountId, email, origin: 'manual', sourceId: null }]));
      return { status: 201, body: { object: 'suppression', id: ids.get(`${principal.accountId} ${email}`) } };
    },
  };
}
