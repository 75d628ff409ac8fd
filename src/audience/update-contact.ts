// PATCH /contacts/:contact {first_name?, last_name?, unsubscribed?, properties?, email?}
// (and the legacy path): 200 {object:'contact', id}. An unsubscribe is a change like any
// other: contact.updated is recorded with it, in the same transaction.
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { objectId } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { contactPathDoc, contactUrl, legacyAudience, type ContactPath } from './contact-paths.js';
import { type ContactBody, contactChanges, UPDATE_CONTACT_SCHEMA } from './contact-request.js';
import * as contactStore from './contact-store.js';

export function updateContact(db: Db, path: ContactPath): Route {
  return {
    method: 'PATCH',
    url: contactUrl(path),
    doc: {
      summary: 'Update a contact, by id or address',
      ...contactPathDoc(path),
      body: UPDATE_CONTACT_SCHEMA,
      response: { status: 200, schema: objectId('contact') },
    },
    async handler({ principal, params, body }) {
      const changes = contactChanges(body as ContactBody);
      const contact = await db.tx(async (q) => {
        await legacyAudience(q, principal.accountId, params);
        return contactStore.updateContact(q, principal.accountId, params.contact ?? '', changes);
      });
      if (!contact) throw notFound('Contact');
      return { body: { object: 'contact', id: contact.id } };
    },
  };
}
