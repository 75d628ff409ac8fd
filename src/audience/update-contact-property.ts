// PATCH /contact-properties/:id {fallback_value}: only the fallback changes; a key or type
// is fixed once contacts may carry values of it.
import type { Route } from '../api/route.js';
import { input, type JsonSchema, objectId, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { checkFallback, FALLBACK_SCHEMA, findProperty } from './contact-property-view.js';

/** `key` and `type`: refused with a message that says why, rather than as unknown fields. */
const FIXED: JsonSchema = {
  not: {},
  description: 'Fixed once the property is created: refused.',
  'x-message': 'be left out (only the `fallback_value` of a contact property can be changed)',
};

export function updateContactProperty(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/contact-properties/:id',
    doc: {
      summary: "Change a contact property's fallback value",
      params: { id: uuid() },
      body: input({ fallback_value: FALLBACK_SCHEMA, key: FIXED, type: FIXED }),
      response: { status: 200, schema: objectId('contact_property') },
    },
    async handler({ principal, params, body }) {
      const fallback = (body as { fallback_value?: string | number | null }).fallback_value;
      const id = await db.tx(async (q) => {
        const property = await findProperty(q, principal.accountId, params.id, { lock: true });
        if (fallback !== undefined) {
          checkFallback(fallback, property.type);
          await q.query('UPDATE contact_properties SET fallback_value = $2 WHERE id = $1', [property.id, JSON.stringify(fallback)]);
        }
        return property.id as string;
      });
      return { body: { object: 'contact_property', id } };
    },
  };
}
