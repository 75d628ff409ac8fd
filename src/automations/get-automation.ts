// GET /automations/:id: the automation with its steps and connections as stored.
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { AUTOMATION_SCHEMA, automationDetail } from './automation-view.js';
import { findAutomation } from './find-automation.js';

export function getAutomation(db: Db): Route {
  return {
    method: 'GET',
    url: '/automations/:id',
    doc: { summary: 'Retrieve an automation with its steps and connections', params: { id: uuid() }, response: { status: 200, schema: AUTOMATION_SCHEMA } },
    async handler({ principal, params }) {
      return { body: automationDetail(await findAutomation(db, principal.accountId, params.id)) };
    },
  };
}
