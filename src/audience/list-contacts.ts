import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route, RouteDoc } from '../api/route.js';
import { string, uuid } from '../api/schema.js';
import { type Db, likeLiteral } from '../db/database.js';
import { CONTACT_COLUMNS, CONTACT_SUMMARY_SCHEMA, type ContactRow, contactSummary, toContact } from './contact-fields.js';
import { findSegment, type SegmentNoun } from './segment-view.js';

/** Longest `search` text: an address is at most 254 characters. */
const MAX_SEARCH = 254;

type ListUrl = '/contacts' | '/segments/:id/contacts' | '/audiences/:id/contacts';

/** Only /contacts is in Resend's published description; the SDK calls the others. */
function listContactsDoc(url: ListUrl): RouteDoc {
  const sdk = "The resend SDK's path (contacts.list with a segment), not in Resend's published OpenAPI description.";
  if (url === '/contacts') {
    return listDoc('List contacts', CONTACT_SUMMARY_SCHEMA, {
      defaultLimit: 100,
      query: {
        segment_id: uuid('Only the contacts of this segment.'),
        audience_id: uuid('Deprecated: as `segment_id`.'),
        search: string({
          maxLength: MAX_SEARCH,
          description: "Only contacts whose address, first or last name holds this text, case-insensitively (a Postline addition, not in Resend's API).",
        }),
      },
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
      const search = url === '/contacts' ? parseSearch(query.search) : undefined;
      const args: unknown[] = [principal.accountId];
      const where = ['account_id = $1'];
      if (segmentId) where.push(`id IN (SELECT contact_id FROM segment_contacts WHERE segment_id = $${args.push(segmentId)})`);
      if (search !== undefined) {
        const n = args.push(`%${likeLiteral(search)}%`);
        where.push(`(email ILIKE $${n} OR concat_ws(' ', first_name, last_name) ILIKE $${n})`);
      }
      const { rows, hasMore } = await listPage<ContactRow>(db, { table: 'contacts', columns: CONTACT_COLUMNS, where: where.join(' AND '), params: args, page });
      return {
        body: envelope(
          rows.map((r) => contactSummary(toContact(r))),
          hasMore,
        ),
      };
    },
  };
}

/** `search`: absent, or 1 to MAX_SEARCH characters (blank means no filter). */
/** A blank search is none (its length was checked by its schema). */
const parseSearch = (value: string | undefined): string | undefined => value?.trim() || undefined;
