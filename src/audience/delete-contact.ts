// DELETE /contacts/:contact (and the legacy path): 200 {object:'contact', contact:<the id
// or address exactly as given in the path>, deleted:true}, as Resend answers. An unknown
// contact, or another account's, is 404.
import { notFound } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { constant, object, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { contactPathDoc, contactUrl, legacyAudience, type ContactPath } from './contact-paths.js';
import * as contactStore from './contact-store.js';

export function deleteContact(db: Db, path: ContactPath): Route {
  return {
    method: 'DELETE',
    url: contactUrl(path),
    doc: {
      summary: 'Delete a contact, by id or address',
      ...contactPathDoc(path),
      response: {
        status: 200,
        schema: object({ object: constant('contact'), contact: string({ description: 'The id or address, as given in the path.' }), deleted: constant(true) }),
      },
    },
    async handler({ principal, params }) {
      const deleted = await db.tx(async (q) => {
        await legacyAudience(q, principal.accountId, params);
        return contactStore.deleteContact(q, principal.accountId, params.contact ?? '');
      });
      if (!deleted) throw notFound('Contact');
      return { body: { object: 'contact', contact: params.contact, deleted: true } };
    },
  };
}
