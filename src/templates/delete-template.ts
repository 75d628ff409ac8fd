// DELETE /templates/:id (an id or an alias). Emails already sent with it keep their content.
import type { Route } from '../api/route.js';
import { deletedObject, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findTemplate } from './find-template.js';

export function deleteTemplate(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/templates/:id',
    doc: {
      summary: 'Delete a template',
      params: { id: string({ description: 'The template id, or its alias.' }) },
      response: { status: 200, schema: deletedObject('template') },
    },
    async handler({ principal, params }) {
      const id = await db.tx(async (q) => {
        const row = await findTemplate(q, principal.accountId, params.id!, { lock: true });
        await q.query('DELETE FROM templates WHERE id = $1', [row.id]);
        return row.id;
      });
      return { body: { object: 'template', id, deleted: true } };
    },
  };
}
