// The domain a report route names, when it is the caller's: another account's id, or no
// domain, is a 404 (as every domain route answers). The id is a UUID: the route's schema
// (REPORT_DOMAIN_PARAMS) checked it before the handler ran.
import { notFound } from '../api/errors.js';
import { uuid } from '../api/schema.js';
import type { Queryable } from '../db/database.js';

interface ReportDomain {
  id: string;
  name: string;
}

/** The path parameter of every report route. */
export const REPORT_DOMAIN_PARAMS = { id: uuid('The domain.') };

export async function accountDomainOr404(q: Queryable, accountId: string, id: string | undefined): Promise<ReportDomain> {
  const row = await q.one<ReportDomain>('SELECT id, name FROM domains WHERE id = $1 AND account_id = $2', [id, accountId]);
  if (!row) throw notFound('Domain');
  return row;
}
