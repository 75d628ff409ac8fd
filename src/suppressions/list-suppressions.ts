import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { oneOfValues, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { ORIGINS } from './suppression-view.js';
import { SUPPRESSION_COLUMNS, SUPPRESSION_SUMMARY_SCHEMA, type SuppressionRow, suppressionSummary } from './suppression-view.js';

export function listSuppressions(db: Db): Route {
  return {
    method: 'GET',
    url: '/suppressions',
    doc: listDoc('List suppressions', SUPPRESSION_SUMMARY_SCHEMA, {
      query: {
        origin: oneOfValues(ORIGINS, { description: 'Only those of this origin.' }),
        // A lookup that answers "not suppressed" as an empty list, where GET /suppressions/:address answers 404.
        email: string({ minLength: 1, description: 'Only this address (matched lower-cased): an empty list when it is not suppressed.' }),
      },
    }),
    async handler({ principal, query }) {
      const page = parsePage(query);
      const conditions = ['account_id = $1'];
      const params: unknown[] = [principal.accountId];
      if (query.origin) conditions.push(`origin = $${params.push(query.origin)}`);
      if (query.email) conditions.push(`email = $${params.push(query.email.trim().toLowerCase())}`);
      const { rows, hasMore } = await listPage<SuppressionRow>(db, {
        table: 'suppressions',
        columns: SUPPRESSION_COLUMNS,
        where: conditions.join(' AND '),
        params,
        page,
      });
      return { body: envelope(rows.map(suppressionSummary), hasMore) };
    },
  };
}
