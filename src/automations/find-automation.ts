// Finding an automation for the caller: always within the caller's account, so another
// account's id reads as "not found", never as "forbidden". The id is a route's `:id`, a UUID
// its schema checked.
import { notFound } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import { AUTOMATION_COLUMNS, type AutomationRow } from './automation-view.js';

export async function findAutomation(q: Queryable, accountId: string, id: string | undefined, options: { lock?: boolean } = {}): Promise<AutomationRow> {
  const row = await q.one<AutomationRow>(
    `SELECT ${AUTOMATION_COLUMNS} FROM automations WHERE id = $1 AND account_id = $2 ${options.lock ? 'FOR UPDATE' : ''}`,
    [id, accountId],
  );
  if (!row) throw notFound('Automation');
  return row;
}
