// GET /contacts[?segment_id=] and the segment's own lists, GET /segments/:id/contacts (what
// the SDK calls for contacts.list({segmentId})) and the legacy GET /audiences/:id/contacts:
// newest first, 100 per page unless `limit` says otherwise.
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route, RouteDoc } from '../api/route.js';
import { uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { CONTACT_COLUMNS, CONTACT_SUMMARY_SCHEMA, contactSummary, toContact } from './contact-fields.js';
import { findSegment, type SegmentNoun } from './segment-view.js';

type ListUrl = '/contacts' | '/segments/:id/contacts' | '/audiences/:id/contacts';

/** Only /contacts is in Resend's published description; the SDK calls the others. */
function listContactsDoc(url: ListUrl): RouteDoc {
  const sdk = "The resend SDK's path (contacts.list with a segment), not in Resend's published OpenAPI description.";
  if (url === '/contacts') {
    return listDoc('List contacts', CONTACT_SUMMARY_SCHEMA, {
      defaultLimit: 100,
      query: { segment_id: uuid('Only the contacts of this segment.'), audience_id: uuid('Deprecated: as `segment_id`.') },
    });
  }
  return {
    ...listDoc("List a segment's contacts", CONTACT_SUMMARY_SCHEMA, { defaultLimit: 100 }),
    params: { id: uuid() },
    addition: true,
    description: url === '/audiences/:id/contacts' ? `Deprecated: audiences became segments. ${sdk}` : sdk,
  };
}

export function listContacts(db: Db, url: ListUrl): Route {
  return {
    method: 'GET',
    url,
    doc: listContactsDoc(url),
    async handler({ principal, params, query }) {
      const page = parsePage(query, { defaultLimit: 100 });
      const noun: SegmentNoun = url === '/audiences/:id/contacts' ? 'audience' : 'segment';
      const segmentParam = url === '/contacts' ? (query.segment_id ?? query.audience_id) : params.id;
      const segmentId = segmentParam === undefined ? undefined : (await findSegment(db, principal.accountId, segmentParam, noun)).id;
      const { rows, hasMore } = await listPage(db, {
        table: 'contacts',
        columns: CONTACT_COLUMNS,
        where: segmentId ? 'account_id = $1 AND id IN (SELECT contact_id FROM segment_contacts WHERE segment_id = $2)' : 'account_id = $1',
        params: segmentId ? [principal.accountId, segmentId] : [principal.accountId],
        page,
      });
      return {
        body: envelope(
          rows.map((r) => contactSummary(toContact(r))),
          hasMore,
        ),
      };
    },
  };
}
