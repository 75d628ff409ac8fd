// The account's suppression list (0009_suppressions.sql): addresses Postline no longer sends
// to, lower-cased, one row per address and account. Written by the API (origin `manual`) and
// by delivery outcomes (`bounce`, `complaint`: suppress-on-outcome.ts); read by the accept
// pipeline (src/emails/apply-suppressions.ts), once per request. Every change records
// suppression.added / suppression.removed through the one event writer, in its transaction.
import crypto from 'node:crypto';
import type { Queryable } from '../db/database.js';
import { type NewEvent, recordEvents } from '../events/record-events.js';
import { SUPPRESSION_COLUMNS, type SuppressionOrigin, type SuppressionRow } from './suppression-view.js';

export interface NewSuppression {
  accountId: string;
  /** A bare address; stored lower-cased. */
  email: string;
  origin: SuppressionOrigin;
  /** The email whose bounce or complaint put the address on the list. */
  sourceId: string | null;
}

/** A row as added or removed: SUPPRESSION_COLUMNS and account_id. */
interface ChangedSuppressionRow extends SuppressionRow {
  account_id: string;
}

/** The suppression.added / .removed events of rows as stored. */
function suppressionEvents(type: 'suppression.added' | 'suppression.removed', rows: ChangedSuppressionRow[]): NewEvent[] {
  return rows.map((r) => ({
    accountId: r.account_id,
    type,
    data: {
      id: r.id,
      email: r.email,
      origin: r.origin,
      source_id: r.source_id ?? null,
      created_at: new Date(r.created_at).toISOString(),
    },
  }));
}

/**
 * Takes the rows `where` names (over `suppressions`, with `params`) off the list and records
 * suppression.removed for each; call inside a transaction. Returns the rows removed.
 */
export async function removeSuppressions(q: Queryable, where: string, params: unknown[]): Promise<ChangedSuppressionRow[]> {
  const removed = await q.query<ChangedSuppressionRow>(`DELETE FROM suppressions WHERE ${where} RETURNING account_id, ${SUPPRESSION_COLUMNS}`, params);
  await recordEvents(q, suppressionEvents('suppression.removed', removed));
  return removed;
}

/**
 * Adds addresses to their accounts' lists, one statement for all; an address already listed
 * keeps its row (and its first origin), and only new ones record suppression.added. Call
 * inside a transaction. Returns each address's id, by `account email`.
 */
export async function addSuppressions(q: Queryable, entries: NewSuppression[]): Promise<Map<string, string>> {
  const unique = new Map<string, NewSuppression>();
  for (const e of entries) {
    const key = `${e.accountId} ${e.email.toLowerCase()}`;
    if (!unique.has(key)) unique.set(key, e);
  }
  if (unique.size === 0) return new Map();
  const rows = [...unique.values()];
  const added = await q.query<ChangedSuppressionRow>(
    `INSERT INTO suppressions (id, account_id, email, origin, source_id)
     SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::uuid[])
     ON CONFLICT (account_id, email) DO NOTHING
     RETURNING account_id, ${SUPPRESSION_COLUMNS}`,
    [
      rows.map(() => crypto.randomUUID()),
      rows.map((r) => r.accountId),
      rows.map((r) => r.email.toLowerCase()),
      rows.map((r) => r.origin),
      rows.map((r) => r.sourceId),
    ],
  );
  await recordEvents(q, suppressionEvents('suppression.added', added));
  // A separate statement sees rows that a concurrent insert committed meanwhile, too.
  const found = await q.query<{ id: string; account_id: string; email: string }>(
    `SELECT s.id, s.account_id, s.email FROM suppressions s
       JOIN unnest($1::uuid[], $2::text[]) AS v(account_id, email) ON s.account_id = v.account_id AND s.email = v.email`,
    [rows.map((r) => r.accountId), rows.map((r) => r.email.toLowerCase())],
  );
  return new Map(found.map((r) => [`${r.account_id} ${r.email}`, r.id]));
}

/**
 * SQL: the address `email` (an SQL expression) is on the list of the account `account` (a
 * placeholder) — the match suppressedAmong makes, for counting in a query (GET
 * /broadcasts/:id/recipients-count) what the accept pipeline will leave out.
 */
export function onSuppressionList(account: string, email: string): string {
  return `EXISTS (SELECT 1 FROM suppressions s WHERE s.account_id = ${account} AND s.email = lower(${email}))`;
}

/** Which of `addresses` are on the account's list, with their origin, keyed by lower-cased address. */
export async function suppressedAmong(q: Queryable, accountId: string, addresses: string[]): Promise<Map<string, SuppressionOrigin>> {
  if (addresses.length === 0) return new Map();
  const rows = await q.query<{ email: string; origin: SuppressionOrigin }>(
    `SELECT email, origin FROM suppressions WHERE account_id = $1 AND email = ANY($2::text[])`,
    [accountId, [...new Set(addresses.map((a) => a.toLowerCase()))]],
  );
  return new Map(rows.map((r) => [r.email, r.origin]));
}
