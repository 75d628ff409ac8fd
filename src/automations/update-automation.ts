// PATCH /automations/:id {name?, status?, steps + connections?}: 200 {object, id}. A new
// graph applies to runs started from then on; runs under way keep the graph they started
// with (0015_automations.sql). Disabling stops new runs only; POST …/stop also cancels runs.
import type { Route } from '../api/route.js';
import { objectId, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { type AutomationBody, checkTemplates, PATCH_AUTOMATION_SCHEMA, parsePatch } from './automation-fields.js';
import { findAutomation } from './find-automation.js';

export function updateAutomation(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/automations/:id',
    doc: {
      summary: 'Update an automation (a new graph applies to runs started from then on)',
      params: { id: uuid() },
      body: PATCH_AUTOMATION_SCHEMA,
      response: { status: 200, schema: objectId('automation') },
    },
    async handler({ principal, params, body }) {
      const fields = parsePatch(body as AutomationBody);
      const id = await db.tx(async (q) => {
        const automation = await findAutomation(q, principal.accountId, params.id, { lock: true });
        if (fields.graph) await checkTemplates(q, principal.accountId, fields.graph);
        await q.query(
          `UPDATE automations
              SET name = COALESCE($2, name), status = COALESCE($3, status),
                  steps = COALESCE($4::jsonb, steps), connections = COALESCE($5::jsonb, connections),
                  trigger_event = COALESCE($6, trigger_event), updated_at = now()
            WHERE id = $1`,
          [
            automation.id,
            fields.name ?? null,
            fields.status ?? null,
            fields.graph ? JSON.stringify(fields.graph.steps) : null,
            fields.graph ? JSON.stringify(fields.graph.connections) : null,
            fields.graph?.triggerEvent ?? null,
          ],
        );
        return automation.id;
      });
      return { body: { object: 'automation', id } };
    },
  };
}
