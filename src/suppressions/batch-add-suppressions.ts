// POST /suppressions/batch/add {emails[]}: up to 100 addresses at once (origin `manual`);
// 201 {data: [{object, id}]} in request order. One invalid address refuses the whole batch.
import type { Route } from '../api/route.js';
import { array, input, object, objectId } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { ADDRESS_SCHEMA, batchSchema, parseAddress } from './suppression-fields.js';
import { addSuppressions } from './suppression-list.js';

export function batchAddSuppressions(db: Db): Route {
  return {
    method: 'POST',
    url: '/suppressions/batch/add',
    doc: {
      summary: 'Suppress up to 100 addresses at once',
      body: input({ emails: batchSchema(ADDRESS_SCHEMA) }, ['emails']),
      response: { status: 201, schema: object({ data: array(objectId('suppression')) }) },
    },
    async handler({ principal, body }) {
      const emails = (body as { emails: string[] }).emails.map((value, i) => parseAddress(value, `emails[${i}]`));
      const { accountId } = principal;
      const ids = await db.tx((q) =>
        addSuppressions(
          q,
          emails.map((email) => ({ accountId, email, origin: 'manual' as const, sourceId: null })),
        ),
      );
      return { status: 201, body: { data: emails.map((email) => ({ object: 'suppression', id: ids.get(`${accountId} ${email}`) })) } };
    },
  };
}
