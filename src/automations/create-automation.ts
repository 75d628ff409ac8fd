// POST /automations {name, status?, steps, connections}: 201 {object:'automation', id}.
// Disabled unless `status: 'enabled'` is given; enabled automations start a run for each
// matching event sent from then on.
import crypto from 'node:crypto';
import type { Route } from '../api/route.js';
import { objectId } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { checkTemplates, CREATE_AUTOMATION_SCHEMA, parseCreate } from './automation-fields.js';

export function createAutomation(db: Db): Route {
  return {
    method: 'POST',
    url: '/automations',
    doc: { summary: 'Create an automation', body: CREATE_AUTOMATION_SCHEMA, response: { status: 201, schema: objectId('automation') } },
    async handler({ principal, body }) {
      const fields = parseCreate(body as Parameters<typeof parseCreate>[0]);
      const id = crypto.randomUUID();
      await db.tx(async (q) => {
        await checkTemplates(q, principal.accountId, fields.graph);
        await q.query(
          `INSERT INTO automations (id, account_id, name, status, steps, connections, trigger_event)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [
            id,
            principal.accountId,
            fields.name,
            fields.status,
            JSON.stringify(fields.graph.steps),
            JSON.stringify(fields.graph.connections),
            fields.graph.triggerEvent,
          ],
        );
      });
      return { status: 201, body: { object: 'automation', id } };
    },
  };
}
