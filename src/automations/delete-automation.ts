// DELETE /automations/:id: the automation and its runs (cascade). A step being executed when
// its run disappears finds nothing to record and is dropped (advance.ts, StaleStep).
import type { Route } from '../api/route.js';
import { deletedObject, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findAutomation } from './find-automation.js';

export function deleteAutomation(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/automations/:id',
    doc: { summary: 'Delete an automation and its runs', params: { id: uuid() }, response: { status: 200, schema: deletedObject('automation') } },
    async handler({ principal, params }) {
      const id = await db.tx(async (q) => {
        const automation = await findAutomation(q, principal.accountId, params.id, { lock: true });
        await q.query('DELETE FROM automations WHERE id = $1', [automation.id]);
        return automation.id;
      });
      return { body: { object: 'automation', id, deleted: true } };
    },
  };
}
