import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { oneOfValues } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { ORIGINS } from './suppression-view.js';
import { SUPPRESSION_COLUMNS, SUPPRESSION_SUMMARY_SCHEMA, type SuppressionRow, suppressionSummary } from './suppression-view.js';

export function listSuppressions(db: Db): Route {
  return {
    method: 'GET',
    url: '/suppressions',
    doc: listDoc('List suppressions', SUPPRESSION_SUMMARY_SCHEMA, { query: { origin: oneOfValues(ORIGINS, { description: 'Only those of this origin.' }) } }),
    async handler({ principal, query }) {
      const page = parsePage(query);
      const { origin } = query;
      const { rows, hasMore } = await listPage<SuppressionRow>(db, {
        table: 'suppressions',
        columns: SUPPRESSION_COLUMNS,
        where: origin ? 'account_id = $1 AND origin = $2' : 'account_id = $1',
        params: origin ? [principal.accountId, origin] : [principal.accountId],
        page,
      });
      return { body: envelope(rows.map(suppressionSummary), hasMore) };
    },
  };
}
