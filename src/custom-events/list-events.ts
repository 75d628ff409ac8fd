// GET /events: the caller's custom event definitions, newest first, paginated.
import { accountList } from '../api/pagination.js';
import type { Route } from '../api/route.js';
import type { Db } from '../db/database.js';
import { EVENT_COLUMNS, EVENT_SUMMARY_SCHEMA, type EventRow, eventSummary } from './event-view.js';

export function listEvents(db: Db): Route {
  return accountList<EventRow>(db, {
    url: '/events',
    table: 'event_definitions',
    columns: EVENT_COLUMNS,
    view: (rows) => rows.map(eventSummary),
    doc: { summary: 'List custom event definitions', item: EVENT_SUMMARY_SCHEMA },
  });
}
