// PATCH /contact-properties/:id {fallback_value}: only the fallback changes; a key or type
// is fixed once contacts may carry values of it.
import { validation } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { input, nullable, number, objectId, string, uuid } from '../api/schema.js';
import { objectBody, rejectUnknown } from '../api/validate.js';
import type { Db } from '../db/database.js';
import { findProperty, parseFallback } from './contact-property-view.js';

export function updateContactProperty(db: Db): Route {
  return {
    method: 'PATCH',
    url: '/contact-properties/:id',
    doc: {
      summary: "Change a contact property's fallback value",
      params: { id: uuid() },
      body: input({ fallback_value: nullable({ oneOf: [string(), number()], description: "Of the property's type." }) }),
      response: { status: 200, schema: objectId('contact_property') },
    },
    async handler({ principal, params, body: raw }) {
      const body = objectBody(raw);
      for (const fixed of ['key', 'type']) {
        if (fixed in body) throw validation(`The \`${fixed}\` of a contact property cannot be changed; only \`fallback_value\` can.`);
      }
      rejectUnknown(body, ['fallback_value']);
      const id = await db.tx(async (q) => {
        const property = await findProperty(q, principal.accountId, params.id, { lock: true });
        const fallback = parseFallback(body, property.type);
        if (fallback !== undefined) {
          await q.query('UPDATE contact_properties SET fallback_value = $2 WHERE id = $1', [property.id, JSON.stringify(fallback)]);
        }
        return property.id as string;
      });
      return { body: { object: 'contact_property', id } };
    },
  };
}
