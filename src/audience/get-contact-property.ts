// GET /contact-properties/:id.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { findProperty, propertyDetail } from './contact-property-view.js';

export function getContactProperty(db: Db): Route {
  return {
    method: 'GET',
    url: '/contact-properties/:id',
    async handler({ principal, params }) {
      return { body: propertyDetail(await findProperty(db, principal.accountId, params.id)) };
    },
  };
}
