// DELETE /contacts/:contact/segments/:segmentId: 200 {object:'contact_segment', id,
// audienceId, contact_id, segment_id, deleted:true}: Resend's answer (object, contact_id,
// segment_id, deleted) with the SDK's RemoveContactSegmentResponseSuccess fields (id and
// audienceId, both the segment: audiences became segments). Idempotent like Resend's deletes: a contact that is
// not in the segment answers the same (the contact and the segment must exist: 404 otherwise).
import type { Route } from '../api/route.js';
import { constant, object, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { CONTACT_KEY_SCHEMA, pathContact } from './contact-paths.js';
import { leaveSegment, touchContact } from './contact-store.js';
import { findSegment } from './segment-view.js';

export function removeContactSegment(db: Db): Route {
  return {
    method: 'DELETE',
    url: '/contacts/:contact/segments/:segmentId',
    doc: {
      summary: 'Remove a contact from a segment',
      params: { contact: CONTACT_KEY_SCHEMA, segmentId: uuid() },
      response: {
        status: 200,
        schema: object({
          object: constant('contact_segment'),
          id: uuid(),
          audienceId: uuid('The segment again, under the name the SDK declares (audiences became segments).'),
          contact_id: uuid(),
          segment_id: uuid(),
          deleted: constant(true),
        }),
      },
    },
    async handler({ principal, params }) {
      const result = await db.tx(async (q) => {
        const contact = await pathContact(q, principal.accountId, params);
        const segment = await findSegment(q, principal.accountId, params.segmentId);
        if (await leaveSegment(q, contact.id, segment.id)) await touchContact(q, contact.id);
        return { contactId: contact.id, segmentId: segment.id as string };
      });
      return {
        body: {
          object: 'contact_segment',
          id: result.segmentId,
          audienceId: result.segmentId,
          contact_id: result.contactId,
          segment_id: result.segmentId,
          deleted: true,
        },
      };
    },
  };
}
