// One of the caller's emails, by the id in a route's path, for the routes about one email (its
// events, delivery attempts, return-path reports, attachments, a share link, its queue rows):
// an id that is missing or another account's is the same 404. The id is a UUID: the routes'
// schemas (`params: { id: uuid() }`) refuse a malformed one before their handlers run.
import { notFound } from '../api/errors.js';
import type { Queryable } from '../db/database.js';

/** The email's id when it is one of `accountId`'s emails; otherwise throws Resend's 404. */
export async function accountEmailOr404(q: Queryable, accountId: string, id: string | undefined): Promise<string> {
  await accountEmailRow(q, accountId, id, 'id');
  return id!;
}

/**
 * `columns` of the email (table `emails`, unaliased) when it is one of `accountId`'s; otherwise
 * throws Resend's 404. `R` is the row `columns` select, as for Queryable.query.
 */
export async function accountEmailRow<R extends object = never>(q: Queryable, accountId: string, id: string | undefined, columns: string): Promise<R> {
  const row = await q.one<R>(`SELECT ${columns} FROM emails WHERE emails.id = $1 AND emails.account_id = $2`, [id, accountId]);
  if (!row) throw notFound('Email');
  return row;
}
