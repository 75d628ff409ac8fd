// POST /templates/:id/duplicate (an id or an alias): a new draft template with a copy of the
// draft's content, named "<name> (Copy)", without the alias (aliases are unique).
import crypto from 'node:crypto';
import { restTimestamp } from '../api/format.js';
import type { Route } from '../api/route.js';
import { objectId, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findTemplate } from './find-template.js';
import { storedVariables } from './variables.js';

const MAX_NAME = 255;

export function duplicateTemplate(db: Db): Route {
  return {
    method: 'POST',
    url: '/templates/:id/duplicate',
    doc: {
      summary: 'Duplicate a template as a new draft',
      params: { id: string({ description: 'The template id, or its alias.' }) },
      response: { status: 200, schema: objectId('template') },
    },
    async handler({ principal, params }) {
      const source = await findTemplate(db, principal.accountId, params.id!);
      const id = crypto.randomUUID();
      const variables = storedVariables(source.variables, [], restTimestamp(new Date())!, crypto.randomUUID);
      await db.query(
        `INSERT INTO templates (id, account_id, name, from_address, subject, reply_to, html, text, variables, draft_version_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          id,
          principal.accountId,
          `${source.name} (Copy)`.slice(0, MAX_NAME),
          source.from_address,
          source.subject,
          source.reply_to,
          source.html,
          source.text,
          JSON.stringify(variables),
          crypto.randomUUID(),
        ],
      );
      return { status: 200, body: { object: 'template', id } };
    },
  };
}
