// GET /templates/:id (an id or an alias): the draft, with its publication state.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { findTemplate } from './find-template.js';
import { templateDetail } from './template-view.js';

export function getTemplate(db: Db): Route {
  return {
    method: 'GET',
    url: '/templates/:id',
    async handler({ principal, params }) {
      return { body: templateDetail(await findTemplate(db, principal.accountId, params.id!)) };
    },
  };
}
