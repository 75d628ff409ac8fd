// Recipient domains' MTA-STS policies (RFC 8461), kept in PostgreSQL (mta_sts_policies) so every
// node uses the same policy and a cluster looks each domain up once per check interval
// (POSTLINE_MTA_STS_CHECK_INTERVAL), not once per message:
// - a node keeps what it read for a few seconds (MEMO_MS) and otherwise reads the shared row;
// - the node that moves a due row's check_after on (one UPDATE: others see it moved) looks the
//   `_mta-sts` TXT record up and fetches the policy when its id changed, none is cached, or the
//   cached one nears its max_age (RFC 8461 §5.1: refresh before expiry);
// - a failed lookup or fetch keeps the cached policy until it expires (§5.1), and says why in
//   last_error; a TXT record that disappears does not end a cached policy either (§3.1 / §5.1).
// The first message to a domain waits for its first lookup; until then other nodes, reading a
// row with no policy yet, deliver as before (trust on first use, as RFC 8461 §10.2 accepts).
import type { Db, Queryable } from '../db/database.js';
import { DnsTemporaryError, type DnsResolver } from '../dns/resolver.js';
import type { Logger } from '../logger.js';
import { fetchStsPolicy, parseStsRecord } from './mta-sts.js';

export interface CachedStsPolicy {
  domain: string;
  id: string;
  mode: 'enforce' | 'testing' | 'none';
  mx: string[];
  maxAgeS: number;
  /** The policy as fetched (TLS reports quote it). */
  text: string;
  fetchedAt: Date;
  expiresAt: Date;
}

/** What is known of a domain's policy: the one in force (null: none, or expired) and what went wrong last. */
interface StsState {
  policy: CachedStsPolicy | null;
  lastError: string | null;
  checkedAt: Date | null;
}

/** An mta_sts_policies row: the policy's columns are stored together, all null while no policy is known. */
type StsPolicyRow = { domain: string; mx: string[]; checked_at: Date | null; check_after: Date; last_error: string | null } & (
  | { policy_id: null; mode: null; max_age: null; policy_text: null; fetched_at: null; expires_at: null }
  | { policy_id: string; mode: CachedStsPolicy['mode']; max_age: number; policy_text: string; fetched_at: Date; expires_at: Date }
);

/** How long a node trusts what it read before reading the shared row again. */
const MEMO_MS = 10_000;

export class MtaStsPolicies {
  private memo = new Map<string, { until: number; state: Promise<StsState> }>();

  constructor(
    private db: Db,
    private resolver: DnsResolver,
    private checkMs: number,
    private logger: Logger,
  ) {}

  /** The domain's policy state; a database failure rejects (the attempt then gives its rows back). */
  policyFor(domain: string): Promise<StsState> {
    const key = domain.toLowerCase();
    const hit = this.memo.get(key);
    if (hit && hit.until > Date.now()) return hit.state;
    const state = this.load(key);
    this.memo.set(key, { until: Date.now() + Math.min(MEMO_MS, this.checkMs), state });
    if (this.memo.size > 10_000) this.memo.clear();
    state.catch(() => this.memo.delete(key));
    return state;
  }

  private async load(domain: string): Promise<StsState> {
    // Claims the check when due (or the domain is new): only the node whose UPDATE moved
    // check_after on gets the row back.
    const claimed = await this.db.query<StsPolicyRow>(
      `INSERT INTO mta_sts_policies (domain, check_after) VALUES ($1, now() + $2 * interval '1 millisecond')
       ON CONFLICT (domain) DO UPDATE SET check_after = EXCLUDED.check_after WHERE mta_sts_policies.check_after <= now()
       RETURNING *`,
      [domain, this.checkMs],
    );
    if (claimed[0]) return this.check(claimed[0]);
    const row = await this.db.one<StsPolicyRow>('SELECT * FROM mta_sts_policies WHERE domain = $1', [domain]);
    return stateOf(row);
  }

  /** Looks the TXT record up, fetches the policy when needed, and stores what it found. */
  private async check(row: StsPolicyRow): Promise<StsState> {
    const domain: string = row.domain;
    const cached = stateOf(row).policy;
    let found: { id: string; policy: Awaited<ReturnType<typeof fetchStsPolicy>> } | undefined;
    let error: string | null = null;
    try {
      const record = parseStsRecord(await this.resolver.txt(`_mta-sts.${domain}`, { fresh: true }));
      if (record && 'error' in record) error = `_mta-sts.${domain}: ${record.error}`;
      else if (record && !(cached && cached.id === record.id && !this.nearsExpiry(cached))) {
        const policy = await fetchStsPolicy(domain, { lookup: (host) => this.resolver.addresses(host) });
        found = { id: record.id, policy };
        if (!policy.ok) error = policy.error;
      }
    } catch (err) {
      if (!(err instanceof DnsTemporaryError)) throw err;
      error = `_mta-sts.${domain}: ${err.message}`;
    }
    if (error) this.logger.info({ domain, error }, 'MTA-STS: the policy could not be refreshed; the cached one (if any) stays in force');
    const stored = await this.db.one<StsPolicyRow>(
      found?.policy.ok
        ? `UPDATE mta_sts_policies
              SET policy_id = $2, mode = $3, mx = $4, max_age = $5::integer, policy_text = $6, fetched_at = now(),
                  expires_at = now() + $5::integer * interval '1 second', checked_at = now(), last_error = NULL
            WHERE domain = $1 RETURNING *`
        : 'UPDATE mta_sts_policies SET checked_at = now(), last_error = $2 WHERE domain = $1 RETURNING *',
      found?.policy.ok ? [domain, found.id, found.policy.policy.mode, found.policy.policy.mx, found.policy.policy.maxAge, found.policy.text] : [domain, error],
    );
    return stateOf(stored);
  }

  /** Fetched again ahead of expiry: within two check intervals of it, or past half its max_age. */
  private nearsExpiry(policy: CachedStsPolicy): boolean {
    const left = policy.expiresAt.getTime() - Date.now();
    return left < 2 * this.checkMs || left < (policy.maxAgeS * 1000) / 2;
  }
}

function stateOf(row: StsPolicyRow | undefined): StsState {
  if (!row) return { policy: null, lastError: null, checkedAt: null };
  const inForce = row.policy_id && row.expires_at && row.expires_at.getTime() > Date.now();
  return {
    policy: inForce
      ? {
          domain: row.domain,
          id: row.policy_id,
          mode: row.mode,
          mx: row.mx,
          maxAgeS: row.max_age,
          text: row.policy_text,
          fetchedAt: row.fetched_at,
          expiresAt: row.expires_at,
        }
      : null,
    lastError: row.last_error,
    checkedAt: row.checked_at,
  };
}

/** What the queue view shows of a recipient domain's MTA-STS policy (no lookup: what the nodes last found). */
export interface StsView {
  domain: string;
  policy: { id: string; mode: string; mx: string[]; max_age: number; fetched_at: string; expires_at: string } | null;
  checked_at: string | null;
  next_check_at: string;
  last_error: string | null;
}

export async function storedStsPolicies(q: Queryable, domains: string[]): Promise<StsView[]> {
  const rows = await q.query<StsPolicyRow>('SELECT * FROM mta_sts_policies WHERE domain = ANY($1::text[]) ORDER BY domain', [
    domains.map((d) => d.toLowerCase()),
  ]);
  return rows.map((row) => {
    const { policy, lastError, checkedAt } = stateOf(row);
    return {
      domain: row.domain,
      policy: policy && {
        id: policy.id,
        mode: policy.mode,
        mx: policy.mx,
        max_age: policy.maxAgeS,
        fetched_at: policy.fetchedAt.toISOString(),
        expires_at: policy.expiresAt.toISOString(),
      },
      checked_at: checkedAt?.toISOString() ?? null,
      next_check_at: row.check_after.toISOString(),
      last_error: lastError,
    };
  });
}

/** Forgets domains not delivered to for a month whose policy, if any, has expired (housekeeping). */
export async function purgeStaleStsPolicies(q: Queryable): Promise<void> {
  await q.query(`DELETE FROM mta_sts_policies WHERE check_after < now() - interval '30 days' AND (expires_at IS NULL OR expires_at < now())`);
}
