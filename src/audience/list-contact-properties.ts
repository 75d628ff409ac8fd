// GET /contact-properties: the account's definitions, newest first, paginated (100 by default).
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { PROPERTY_COLUMNS, PROPERTY_SUMMARY_SCHEMA, type PropertyRow, propertySummary } from './contact-property-view.js';

export function listContactProperties(db: Db): Route {
  return accountList<PropertyRow>(db, {
    url: '/contact-properties',
    table: 'contact_properties',
    columns: PROPERTY_COLUMNS,
    defaultLimit: 100,
    doc: { summary: 'List contact properties', item: PROPERTY_SUMMARY_SCHEMA },
    view: (rows) => rows.map(propertySummary),
  });
}
