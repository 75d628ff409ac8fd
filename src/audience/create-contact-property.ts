// POST /contact-properties {key, type, fallback_value?}: 201 {object:'contact_property', id}.
// Keys are unique per account.
import type { Route } from '../api/route.js';
import { objectId } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { CREATE_PROPERTY_SCHEMA, type CreatePropertyBody, checkFallback, checkKeyFree, keyTaken } from './contact-property-view.js';

export function createContactProperty(db: Db): Route {
  return {
    method: 'POST',
    url: '/contact-properties',
    doc: {
      summary: 'Define a contact property',
      body: CREATE_PROPERTY_SCHEMA,
      response: { status: 201, schema: objectId('contact_property') },
    },
    async handler({ principal, body }) {
      const { key, type, fallback_value: fallback = null } = body as CreatePropertyBody;
      checkKeyFree(key);
      checkFallback(fallback, type);
      const id = crypto.randomUUID();
      const inserted = await db.query(
        `INSERT INTO contact_properties (id, account_id, key, type, fallback_value) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (account_id, key) DO NOTHING RETURNING id`,
        [id, principal.accountId, key, type, JSON.stringify(fallback)],
      );
      if (inserted.length === 0) throw keyTaken(key);
      return { status: 201, body: { object: 'contact_property', id } };
    },
  };
}
