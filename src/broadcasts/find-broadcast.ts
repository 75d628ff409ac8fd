// Finding one broadcast of the caller's account, and what each state allows. Changes lock the
// row (FOR UPDATE), so they never cross the fan-out's claim (which skips locked rows) or each
// other: a broadcast that went out while a DELETE waited is seen as `sending`, and refused.
import { notFound, validation, type ApiError } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import { BROADCAST_COLUMNS, type BroadcastRow, type BroadcastStatus } from './broadcast-view.js';

/** `id`: a route's `:id`, a UUID its schema checked. */
export async function findBroadcast(q: Queryable, accountId: string, id: string, options: { lock?: boolean } = {}): Promise<BroadcastRow> {
  const row = await q.one<BroadcastRow>(`SELECT ${BROADCAST_COLUMNS} FROM broadcasts WHERE id = $1 AND account_id = $2${options.lock ? ' FOR UPDATE' : ''}`, [
    id,
    accountId,
  ]);
  if (!row) throw notFound('Broadcast');
  return row;
}

/** Not yet gone out: content, segment and time may still change. */
export const UNSENT: BroadcastStatus[] = ['draft', 'scheduled'];

/** 403 validation_error naming the state, as Resend answers a broadcast that cannot be canceled (§2.8). */
export function wrongState(status: BroadcastStatus, action: string): ApiError {
  const was = status === 'sending' ? 'is being sent' : status === 'sent' ? 'has been sent' : `is ${status}`;
  return validation(`The broadcast ${was} (status \`${status}\`) and can no longer be ${action}.`, 403);
}
