// domain_claims rows: how a claim is read (the latest of a placeholder domain, in its account),
// how it appears on the wire (Resend's DomainClaim), and the writes other parts of domains/
// make to it. A claim is `pending` or `blocked` until it completes, is superseded by a newer
// claim of the same account, is canceled (its placeholder deleted) or expires.
import crypto from 'node:crypto';
import { restTimestamp } from '../api/format.js';
import { constant, nullable, object, oneOfValues, restTime, string, uuid } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import { REGIONS } from './domain-fields.js';

/** How long a claim may wait for its proof: Resend's claims expire after seven days. */
const CLAIM_LIFETIME = '7 days';
/** The TXT record's value before the claim's token. */
export const PROOF_PREFIX = 'postline-domain-verification=';
/** Statuses a claim can still complete from. */
export const LIVE_STATUSES = ['pending', 'blocked'];

/** A live claim past its expiry reads as `expired` (nothing needs to run at the moment it expires). */
const CLAIM_COLUMNS = `c.id, c.account_id, c.domain_id, c.name, c.token, c.blocked_reason, c.failure_reason, c.created_at, c.expires_at,
  CASE WHEN c.status IN ('pending', 'blocked') AND c.expires_at <= now() THEN 'expired' ELSE c.status END AS status,
  d.region`;

/** A claim as CLAIM_COLUMNS selects it. */
export interface ClaimRow {
  id: string;
  account_id: string;
  domain_id: string;
  name: string;
  token: string;
  blocked_reason: string | null;
  failure_reason: string | null;
  created_at: Date;
  expires_at: Date;
  status: string;
  /** The placeholder's region; null once it is deleted (a canceled claim). */
  region: string | null;
}

/** The latest claim of the account's placeholder domain `domainId` (Resend: "the latest claim for the placeholder domain"). */
export async function latestClaim(q: Queryable, accountId: string, domainId: string, lock = false): Promise<ClaimRow | undefined> {
  return q.one<ClaimRow>(
    `SELECT ${CLAIM_COLUMNS} FROM domain_claims c LEFT JOIN domains d ON d.id = c.domain_id
      WHERE c.domain_id = $1 AND c.account_id = $2 ORDER BY c.created_at DESC, c.id DESC LIMIT 1 ${lock ? 'FOR UPDATE OF c' : ''}`,
    [domainId, accountId],
  );
}

/** A new pending claim of `domainId`'s name, with a fresh token, expiring after CLAIM_LIFETIME. */
export async function insertClaim(q: Queryable, accountId: string, domainId: string, name: string): Promise<ClaimRow> {
  const id = crypto.randomUUID();
  await q.query(
    `INSERT INTO domain_claims (id, account_id, domain_id, name, token, expires_at) VALUES ($1, $2, $3, $4, $5, now() + interval '${CLAIM_LIFETIME}')`,
    [id, accountId, domainId, name, crypto.randomBytes(16).toString('hex')],
  );
  return (await latestClaim(q, accountId, domainId))!;
}

/** The placeholder `domainId` was deleted: its live claims are canceled (in the deletion's transaction). */
export async function cancelClaims(q: Queryable, accountId: string, domainId: string): Promise<void> {
  await q.query(`UPDATE domain_claims SET status = 'canceled' WHERE domain_id = $1 AND account_id = $2 AND status IN ('pending', 'blocked')`, [
    domainId,
    accountId,
  ]);
}

export const claimRecord = (row: ClaimRow) => ({ type: 'TXT' as const, name: row.name, value: `${PROOF_PREFIX}${row.token}`, ttl: 'Auto' as const });

/** Resend's DomainClaim. */
export function claimView(row: ClaimRow) {
  return {
    object: 'domain_claim' as const,
    id: row.id,
    name: row.name,
    status: row.status,
    domain_id: row.domain_id,
    region: row.region ?? null,
    record: claimRecord(row),
    blocked_reason: row.blocked_reason ?? null,
    failure_reason: row.failure_reason ?? null,
    created_at: restTimestamp(row.created_at),
    expires_at: restTimestamp(row.expires_at),
  };
}

const STATUSES = ['pending', 'verified', 'completed', 'blocked', 'expired', 'superseded', 'canceled', 'failed'];
/** claimView's shape. */
export const CLAIM_SCHEMA = object({
  object: constant('domain_claim'),
  id: uuid(),
  name: string(),
  status: oneOfValues(STATUSES, {
    description:
      'pending until the TXT record is found and the domain moves (then completed, at once); blocked while the holder still has mail to send from the domain; expired 7 days after the claim; superseded by a newer claim of the same name; canceled when the placeholder domain is deleted.',
  }),
  domain_id: uuid('The placeholder domain: the claimed domain, in this account, once the claim completes.'),
  region: nullable(oneOfValues(REGIONS)),
  record: object({
    type: constant('TXT'),
    name: string({ description: 'The domain itself.' }),
    value: string({ examples: [`${PROOF_PREFIX}3f8a1c2d4e5b6a7f8091a2b3c4d5e6f7`] }),
    ttl: constant('Auto'),
  }),
  blocked_reason: nullable(oneOfValues(['pending_scheduled_emails'], { description: 'Postline blocks a claim for this reason only.' })),
  failure_reason: nullable(string({ description: 'Why the last verification did not complete the claim (the proof not found, a DNS failure).' })),
  created_at: restTime(),
  expires_at: restTime(),
});
