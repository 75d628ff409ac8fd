// POST /templates/:id/publish (an id or an alias): the draft becomes the version sending
// uses, frozen in `published` so later edits of the draft do not reach sent emails.
// Publishing an unchanged draft again changes nothing.
import type { Route } from '../api/route.js';
import { objectId, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findTemplate } from './find-template.js';

export function publishTemplate(db: Db): Route {
  return {
    method: 'POST',
    url: '/templates/:id/publish',
    doc: {
      summary: 'Publish a template: its draft becomes what sending uses',
      params: { id: string({ description: 'The template id, or its alias.' }) },
      response: { status: 200, schema: objectId('template') },
    },
    async handler({ principal, params }) {
      const id = await db.tx(async (q) => {
        const row = await findTemplate(q, principal.accountId, params.id!, { lock: true });
        await q.query(
          `UPDATE templates
              SET published = jsonb_build_object('from', from_address, 'subject', subject, 'reply_to', to_jsonb(reply_to),
                                                 'html', html, 'text', text, 'variables', variables),
                  published_version_id = draft_version_id, published_at = now(), updated_at = now()
            WHERE id = $1 AND draft_version_id IS DISTINCT FROM published_version_id`,
          [row.id],
        );
        return row.id;
      });
      return { body: { object: 'template', id } };
    },
  };
}
