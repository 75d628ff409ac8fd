// GET /automations/:id/runs/:run_id: a run with the steps it has reached, in the order it
// reached them, each with its status, output and error.
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { RUN_COLUMNS, RUN_SCHEMA, RUN_STEP_COLUMNS, type RunStepRow, type RunSummaryRow, runDetail } from './automation-view.js';
import { findAutomation } from './find-automation.js';

export function getRun(db: Db): Route {
  return {
    method: 'GET',
    url: '/automations/:id/runs/:run_id',
    doc: { summary: 'Retrieve a run with the steps it has reached', params: { id: uuid(), run_id: uuid() }, response: { status: 200, schema: RUN_SCHEMA } },
    async handler({ principal, params }) {
      const automation = await findAutomation(db, principal.accountId, params.id);
      const run = await db.one<RunSummaryRow>(`SELECT ${RUN_COLUMNS} FROM automation_runs WHERE id = $1 AND automation_id = $2`, [
        params.run_id,
        automation.id,
      ]);
      if (!run) throw notFound('Automation run');
      const steps = await db.query<RunStepRow>(`SELECT ${RUN_STEP_COLUMNS} FROM automation_run_steps WHERE run_id = $1 ORDER BY position, key`, [run.id]);
      return { body: runDetail(run, steps) };
    },
  };
}
