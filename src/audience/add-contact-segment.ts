// POST /contacts/:contact/segments/:segmentId (no body): 200 {object:'contact_segment',
// id, contact_id, segment_id}. Idempotent; contact.updated is recorded only when the
// contact was not in the segment yet (its segment_ids changed).
import type { Route } from '../api/route.js';
import { constant, object, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { CONTACT_KEY_SCHEMA, pathContact } from './contact-paths.js';
import { joinSegment, touchContact } from './contact-store.js';
import { findSegment } from './segment-view.js';

export function addContactSegment(db: Db): Route {
  return {
    method: 'POST',
    url: '/contacts/:contact/segments/:segmentId',
    doc: {
      summary: 'Add a contact to a segment',
      params: { contact: CONTACT_KEY_SCHEMA, segmentId: uuid() },
      response: { status: 200, schema: object({ object: constant('contact_segment'), id: uuid(), contact_id: uuid(), segment_id: uuid() }) },
    },
    async handler({ principal, params }) {
      const result = await db.tx(async (q) => {
        const contact = await pathContact(q, principal.accountId, params);
        const segment = await findSegment(q, principal.accountId, params.segmentId);
        if (await joinSegment(q, contact.id, segment.id)) await touchContact(q, contact.id);
        return { contactId: contact.id, segmentId: segment.id as string };
      });
      return {
        body: { object: 'contact_segment', id: result.segmentId, contact_id: result.contactId, segment_id: result.segmentId },
      };
    },
  };
}
