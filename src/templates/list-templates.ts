// GET /templates: the account's templates, newest first, always paginated (limit default 20).
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { SUMMARY_COLUMNS, TEMPLATE_SUMMARY_SCHEMA, type TemplateSummaryRow, templateSummary } from './template-view.js';

export function listTemplates(db: Db): Route {
  return accountList<TemplateSummaryRow>(db, {
    url: '/templates',
    table: 'templates',
    columns: SUMMARY_COLUMNS,
    view: (rows) => rows.map(templateSummary),
    doc: { summary: 'List templates', item: TEMPLATE_SUMMARY_SCHEMA },
  });
}
