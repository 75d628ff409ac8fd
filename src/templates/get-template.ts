// GET /templates/:id (an id or an alias): the draft, with its publication state.
import type { Route } from '../api/route.js';
import { string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findTemplate } from './find-template.js';
import { TEMPLATE_SCHEMA, templateDetail } from './template-view.js';

export function getTemplate(db: Db): Route {
  return {
    method: 'GET',
    url: '/templates/:id',
    doc: {
      summary: 'Retrieve a template (its draft)',
      params: { id: string({ description: 'The template id, or its alias.' }) },
      response: { status: 200, schema: TEMPLATE_SCHEMA },
    },
    async handler({ principal, params }) {
      return { body: templateDetail(await findTemplate(db, principal.accountId, params.id!)) };
    },
  };
}
