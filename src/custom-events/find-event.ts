// Finding a custom event definition by id or by name, always within the caller's account:
// another account's event reads as "not found". Names are never id-shaped (event-fields.ts).
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Queryable } from '../db/database.js';
import { EVENT_COLUMNS, type EventRow } from './event-view.js';

export async function findEvent(q: Queryable, accountId: string, identifier: string, options: { lock?: boolean } = {}): Promise<EventRow> {
  const row = await q.one<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM event_definitions
      WHERE account_id = $1 AND ${isUuid(identifier) ? 'id = $2::uuid' : 'name = $2'} ${options.lock ? 'FOR UPDATE' : ''}`,
    [accountId, identifier],
  );
  if (!row) throw notFound('Event');
  return row;
}
