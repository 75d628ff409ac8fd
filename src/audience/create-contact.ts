// POST /contacts (and the deprecated POST /audiences/:id/contacts): 201
// {object:'contact', id}. One transaction: the contact, its segments and topic choices and
// contact.created commit together or not at all. An address that exists already answers
// with that contact's id (see contact-store.ts for what it does to it).
import type { Route } from '../api/route.js';
import { objectId } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { collectionPathDoc, contactCollectionUrl, legacyAudience, type ContactPath } from './contact-paths.js';
import { CREATE_CONTACT_SCHEMA, type CreateContactBody, createRequest } from './contact-request.js';
import { insertContact } from './contact-store.js';

export function createContact(db: Db, path: ContactPath): Route {
  return {
    method: 'POST',
    url: contactCollectionUrl(path),
    doc: {
      summary: 'Create a contact (an existing address answers with its contact)',
      ...collectionPathDoc(path),
      body: CREATE_CONTACT_SCHEMA,
      response: { status: 201, schema: objectId('contact') },
    },
    async handler({ principal, params, body }) {
      const request = createRequest(body as CreateContactBody);
      const contact = await db.tx(async (q) => {
        const audienceId = await legacyAudience(q, principal.accountId, params);
        const segmentIds = audienceId ? [audienceId, ...request.segmentIds] : request.segmentIds;
        return (await insertContact(q, principal.accountId, request.fields, { segmentIds, topics: request.topics })).contact;
      });
      return { status: 201, body: { object: 'contact', id: contact.id } };
    },
  };
}
