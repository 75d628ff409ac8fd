// GET /automations[?status=enabled|disabled]: the caller's automations, newest first, paginated.
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { oneOfValues } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { STATUSES } from './automation-fields.js';
import { AUTOMATION_COLUMNS, AUTOMATION_SUMMARY_SCHEMA, type AutomationRow, automationSummary } from './automation-view.js';

export function listAutomations(db: Db): Route {
  return {
    method: 'GET',
    url: '/automations',
    doc: listDoc('List automations', AUTOMATION_SUMMARY_SCHEMA, { query: { status: oneOfValues(STATUSES, { description: 'Only those in this state.' }) } }),
    async handler({ principal, query }) {
      const page = parsePage(query);
      const { status } = query;
      const { rows, hasMore } = await listPage<AutomationRow>(db, {
        table: 'automations',
        columns: AUTOMATION_COLUMNS,
        where: status ? 'account_id = $1 AND status = $2' : 'account_id = $1',
        params: status ? [principal.accountId, status] : [principal.accountId],
        page,
      });
      return { body: envelope(rows.map(automationSummary), hasMore) };
    },
  };
}
