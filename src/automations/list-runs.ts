// GET /automations/:id/runs[?status=running,completed,…]: the automation's runs, newest first.
import { envelope, listDoc, listPage, parsePage } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import { string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { RUN_COLUMNS, RUN_STATUSES as STATUSES, RUN_SUMMARY_SCHEMA, type RunSummaryRow, runSummary } from './automation-view.js';
import { findAutomation } from './find-automation.js';

/** The states `?status=` asks for (checked by its pattern); none when absent or empty. */
const statusFilter = (raw: string | undefined): string[] | undefined => (raw ? raw.split(',').map((s) => s.trim()) : undefined);

export function listRuns(db: Db): Route {
  return {
    method: 'GET',
    url: '/automations/:id/runs',
    doc: {
      ...listDoc("List an automation's runs", RUN_SUMMARY_SCHEMA, {
        query: {
          status: string({
            pattern: `^((${STATUSES.join('|')})(,\\s*(${STATUSES.join('|')}))*)?$`,
            'x-message': `be a comma-separated list of ${STATUSES.map((s) => `"${s}"`).join(' | ')}`,
            description: `Only those in these states, comma-separated: ${STATUSES.join(', ')}.`,
          }),
        },
      }),
      params: { id: uuid() },
    },
    async handler({ principal, params, query }) {
      const page = parsePage(query);
      const statuses = statusFilter(query.status);
      const automation = await findAutomation(db, principal.accountId, params.id);
      const { rows, hasMore } = await listPage<RunSummaryRow>(db, {
        table: 'automation_runs',
        columns: RUN_COLUMNS,
        where: `automation_id = $1 AND account_id = $2${statuses ? ' AND status = ANY($3::text[])' : ''}`,
        params: statuses ? [automation.id, principal.accountId, statuses] : [automation.id, principal.accountId],
        page,
      });
      return { body: envelope(rows.map(runSummary), hasMore) };
    },
  };
}
