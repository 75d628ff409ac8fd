// GET /contact-properties: the account's definitions, newest first, paginated (100 by default).
import { envelope, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { PROPERTY_COLUMNS, propertySummary } from './contact-property-view.js';

export function listContactProperties(db: Db): Route {
  return {
    method: 'GET',
    url: '/contact-properties',
    async handler({ principal, query }) {
      const { rows, hasMore } = await listPage(db, {
        table: 'contact_properties',
        columns: PROPERTY_COLUMNS,
        where: 'account_id = $1',
        params: [principal.accountId],
        page: parsePage(query, { defaultLimit: 100 }),
      });
      return { body: envelope(rows.map(propertySummary), hasMore) };
    },
  };
}
