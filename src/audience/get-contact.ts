// GET /contacts/:contact (id or address, unencoded `a+b@x.com` included) and its legacy
// /audiences/:id/contacts/:contact form.
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { CONTACT_SCHEMA, contactDetail } from './contact-fields.js';
import { contactPathDoc, contactUrl, pathContact, type ContactPath } from './contact-paths.js';
import { propertyDefinitions } from './property-values.js';

export function getContact(db: Db, path: ContactPath): Route {
  return {
    method: 'GET',
    url: contactUrl(path),
    doc: { summary: 'Retrieve a contact, by id or address', ...contactPathDoc(path), response: { status: 200, schema: CONTACT_SCHEMA } },
    async handler({ principal, params }) {
      const contact = await pathContact(db, principal.accountId, params);
      const definitions = await propertyDefinitions(db, principal.accountId);
      const types = new Map([...definitions.values()].map((d) => [d.key, d.type as string]));
      return { body: contactDetail(contact, types) };
    },
  };
}
