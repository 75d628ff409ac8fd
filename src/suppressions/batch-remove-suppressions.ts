// POST /suppressions/batch/remove {emails[]} or {ids[]} (one of them, up to 100): takes them off
// the caller's list in one statement. 200 {data: [{object, id, deleted}]} in request order; an
// entry that was not on the list reads `deleted: false` with the id or address as given.
import { validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { array, boolean, constant, input, object, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { ADDRESS_SCHEMA, batchSchema, parseAddress } from './suppression-fields.js';
import { removeSuppressions } from './suppression-list.js';

export function batchRemoveSuppressions(db: Db): Route {
  return {
    method: 'POST',
    url: '/suppressions/batch/remove',
    doc: {
      summary: 'Remove up to 100 suppressions at once, by address or by id',
      // Exactly one of the two: the handler says so in its own words (a schema's `oneOf` would
      // answer `Missing \`emails\` field.` when neither is given, and nothing readable for both).
      body: input({ emails: batchSchema(ADDRESS_SCHEMA), ids: batchSchema(uuid()) }, [], { description: 'Exactly one of `emails` and `ids`.' }),
      response: {
        status: 200,
        schema: object({
          data: array(
            object({ object: constant('suppression'), id: string({ description: 'The id, or as given when it was not listed.' }), deleted: boolean() }),
          ),
        }),
      },
    },
    async handler({ principal, body }) {
      const { emails, ids } = body as { emails?: string[]; ids?: string[] };
      if ((emails === undefined) === (ids === undefined)) throw validation('Provide either `emails` or `ids`, but not both.');
      const byEmail = emails !== undefined;
      const column = byEmail ? 'email' : 'id';
      const keys = emails ? emails.map((value, i) => parseAddress(value, `emails[${i}]`)) : ids!.map((id) => id.toLowerCase());
      const rows = await db.tx((q) =>
        removeSuppressions(q, `account_id = $1 AND ${column} = ANY($2::${byEmail ? 'text' : 'uuid'}[])`, [principal.accountId, [...new Set(keys)]]),
      );
      const removed = new Map(rows.map((r) => [String(r[column]), r.id]));
      const data = keys.map((key) => {
        const id = removed.get(key);
        return { object: 'suppression', id: id ?? key, deleted: id !== undefined };
      });
      return { status: 200, body: { data } };
    },
  };
}
