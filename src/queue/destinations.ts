// A destination as operators name it: a recipient domain (`example.com`), or a provider from
// the provider table (`google`), which stands for every domain whose mail goes to it.
import { validation } from '../api/errors.js';
import type { Queryable } from '../db/database.js';
import type { ProviderTable } from '../providers/providers.js';
import { unfinishedSql } from './states.js';

export interface Destination {
  kind: 'domain' | 'provider';
  name: string;
}

/** A provider's name, else a domain (lower-cased); 422 for anything else. */
export function parseDestination(raw: string, providers: ProviderTable): Destination {
  const name = raw.trim().toLowerCase();
  if (providers.has(name)) return { kind: 'provider', name };
  if (name.length > 253 || !/^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*$/.test(name)) {
    throw validation('The destination must be a recipient domain (example.com) or a provider name (google, microsoft, …).');
  }
  return { kind: 'domain', name };
}

/**
 * The recipient domains a destination covers among the account's unfinished mail: a domain
 * itself; a provider's, by the MX host their last attempt reached (destination_replies), else
 * by the provider's well-known domains.
 */
export async function domainsOf(q: Queryable, accountId: string, destination: Destination, providers: ProviderTable): Promise<string[]> {
  if (destination.kind === 'domain') return [destination.name];
  const rows = await q.query<{ domain: string; mx: string | null }>(
    `SELECT w.domain, r.mx
       FROM (SELECT DISTINCT d.domain FROM deliveries d WHERE d.account_id = $1 AND ${unfinishedSql('d')}) w
       LEFT JOIN destination_replies r ON r.account_id = $1 AND r.domain = w.domain`,
    [accountId],
  );
  return rows.filter((r) => providers.providerOf(r.domain, r.mx ? [r.mx] : []) === destination.name).map((r) => r.domain);
}
