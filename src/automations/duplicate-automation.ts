// POST /automations/:id/duplicate: a disabled copy named "<name> (Copy)"; 201 {object, id}.
import crypto from 'node:crypto';
import type { Route } from '../api/route.js';
import { objectId, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findAutomation } from './find-automation.js';

const MAX_NAME = 255;

export function duplicateAutomation(db: Db): Route {
  return {
    method: 'POST',
    url: '/automations/:id/duplicate',
    doc: { summary: 'Duplicate an automation (disabled)', params: { id: uuid() }, response: { status: 201, schema: objectId('automation') } },
    async handler({ principal, params }) {
      const source = await findAutomation(db, principal.accountId, params.id);
      const id = crypto.randomUUID();
      await db.query(
        `INSERT INTO automations (id, account_id, name, status, steps, connections, trigger_event)
         SELECT $1, account_id, $3, 'disabled', steps, connections, trigger_event FROM automations WHERE id = $2`,
        [id, source.id, `${source.name} (Copy)`.slice(0, MAX_NAME)],
      );
      return { status: 201, body: { object: 'automation', id } };
    },
  };
}
