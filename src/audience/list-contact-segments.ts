// GET /contacts/:contact/segments: the segments a contact is in, newest segment first,
// 100 per page unless `limit` says otherwise.
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { CONTACT_KEY_SCHEMA, pathContact } from './contact-paths.js';
import { SEGMENT_COLUMNS, SEGMENT_SUMMARY_SCHEMA, type SegmentRow, segmentSummary } from './segment-view.js';

export function listContactSegments(db: Db): Route {
  return {
    method: 'GET',
    url: '/contacts/:contact/segments',
    doc: { ...listDoc('List the segments a contact is in', SEGMENT_SUMMARY_SCHEMA, { defaultLimit: 100 }), params: { contact: CONTACT_KEY_SCHEMA } },
    async handler({ principal, params, query }) {
      const page = parsePage(query, { defaultLimit: 100 });
      const contact = await pathContact(db, principal.accountId, params);
      const { rows, hasMore } = await listPage<SegmentRow>(db, {
        table: 'segments',
        columns: SEGMENT_COLUMNS,
        where: 'account_id = $1 AND id IN (SELECT segment_id FROM segment_contacts WHERE contact_id = $2)',
        params: [principal.accountId, contact.id],
        page,
      });
      return { body: envelope(rows.map(segmentSummary), hasMore) };
    },
  };
}
