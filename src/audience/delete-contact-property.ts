// DELETE /contact-properties/:id: removes the definition and, in the same transaction, the
// values contacts held for it, so no contact keeps a property that no longer exists.
import type { Route } from '../api/route.js';
import { deletedObject, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { findProperty } from './contact-property-view.js';
import { dropPropertyValues } from './contact-store.js';

export function deleteContactProperty(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/contact-properties/:id',
    doc: {
      summary: 'Delete a contact property and every value of it',
      params: { id: uuid() },
      response: { status: 200, schema: deletedObject('contact_property') },
    },
    async handler({ principal, params }) {
      const id = await db.tx(async (q) => {
        const property = await findProperty(q, principal.accountId, params.id, { lock: true });
        await q.query('DELETE FROM contact_properties WHERE id = $1', [property.id]);
        await dropPropertyValues(q, principal.accountId, property.key);
        return property.id as string;
      });
      return { body: { object: 'contact_property', id, deleted: true } };
    },
  };
}
