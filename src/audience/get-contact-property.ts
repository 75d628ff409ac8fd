// GET /contact-properties/:id.
import type { Route } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findProperty, PROPERTY_SCHEMA, propertyDetail } from './contact-property-view.js';

export function getContactProperty(db: Db): Route {
  return {
    method: 'GET',
    url: '/contact-properties/:id',
    doc: { summary: 'Retrieve a contact property', params: { id: uuid() }, response: { status: 200, schema: PROPERTY_SCHEMA } },
    async handler({ principal, params }) {
      return { body: propertyDetail(await findProperty(db, principal.accountId, params.id)) };
    },
  };
}
