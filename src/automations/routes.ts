// The /automations routes (resend-compat-notes §2.12), one file per operation, for server.ts
// to mount. Runs are started and advanced by the worker (worker.ts), not by these routes.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { createAutomation } from './create-automation.js';
import { duplicateAutomation } from './duplicate-automation.js';
import { getAutomation } from './get-automation.js';
import { getRun } from './get-run.js';
import { listAutomations } from './list-automations.js';
import { listRuns } from './list-runs.js';
import { deleteAutomation } from './delete-automation.js';
import { stopAutomation } from './stop-automation.js';
import { updateAutomation } from './update-automation.js';

export function automationRoutes(db: Db): Route[] {
  return [
    createAutomation(db),
    listAutomations(db),
    getAutomation(db),
    updateAutomation(db),
    deleteAutomation(db),
    duplicateAutomation(db),
    stopAutomation(db),
    listRuns(db),
    getRun(db),
  ];
}
