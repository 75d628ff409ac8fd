// POST /automations/:id/stop: disables the automation and cancels its running runs in one
// transaction; their unfinished steps become `skipped`, so the worker never claims them, and
// a step being executed at that moment finds its claim gone and records nothing (an email
// it was sending is rolled back with it: advance.ts).
import type { Route } from '../api/route.js';
import { constant, object, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findAutomation } from './find-automation.js';

export function stopAutomation(db: Db): Route {
  return {
    method: 'POST',
    url: '/automations/:id/stop',
    doc: {
      summary: 'Disable an automation and cancel its running runs',
      params: { id: uuid() },
      response: { status: 200, schema: object({ object: constant('automation'), id: uuid(), status: constant('disabled') }) },
    },
    async handler({ principal, params }) {
      const id = await db.tx(async (q) => {
        const automation = await findAutomation(q, principal.accountId, params.id, { lock: true });
        await q.query(`UPDATE automations SET status = 'disabled', updated_at = now() WHERE id = $1`, [automation.id]);
        // Runs first, then their steps: the lock order of every writer of runs (advance.ts).
        await q.query(
          `WITH cancelled AS (
             UPDATE automation_runs SET status = 'cancelled', completed_at = now()
              WHERE automation_id = $1 AND status = 'running' RETURNING id
           )
           UPDATE automation_run_steps SET status = 'skipped', due_at = NULL, claim_token = NULL, completed_at = now()
            WHERE run_id IN (SELECT id FROM cancelled) AND status IN ('pending', 'running', 'waiting')`,
          [automation.id],
        );
        return automation.id;
      });
      return { body: { object: 'automation', id, status: 'disabled' } };
    },
  };
}
