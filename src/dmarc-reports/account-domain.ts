// The domain a report route names, when it is the caller's: another account's id, or no
// domain, is a 404 (as every domain route answers).
import { isUuid } from '../api/format.js';
import { notFound } from '../api/errors.js';
import type { Queryable } from '../db/database.js';

interface ReportDomain {
  id: string;
  name: string;
}

export async function accountDomainOr404(q: Queryable, accountId: string, id: string | undefined): Promise<ReportDomain> {
  const row = id && isUuid(id) ? await q.one<ReportDomain>('SELECT id, name FROM domains WHERE id = $1 AND account_id = $2', [id, accountId]) : undefined;
  if (!row) throw notFound('Domain');
  return row;
}
