// Idempotency-Key on POST /emails and /emails/batch (resend-compat-notes §4): 1..256
// characters, kept 24 hours, scoped per account and endpoint. A replay returns the stored
// response; another body under the same key is 409 invalid_idempotent_request; a key whose
// first request has not finished is 409 concurrent_idempotent_requests. The response is
// stored in the same transaction that commits the work (RouteContext.saveIdempotentResponse),
// so a crash can never leave the work done but the key unanswered. Claims are leased work
// (concurrency/leased-work.ts, whose contract they keep; the lease is ABANDONED_SQL from the
// claim). A claim names the node whose presence vouches for its process (cluster/node-presence.ts)
// when there is one: a node that stops beating has its unanswered claims deleted with its other
// claims, so a client's retry after a crash is served within seconds instead of meeting 409
// until ABANDONED_SQL. A claim's token fences its answer: a request whose claim was deleted or
// taken over since commits nothing (409), so its work is not done twice.
import crypto from 'node:crypto';
import { ApiError } from '../api/errors.js';
import { LeasedWork } from '../concurrency/leased-work.js';
import type { Db, Queryable } from '../db/database.js';

const LIFETIME_SQL = `interval '24 hours'`;
/** An in-flight claim older than this belongs to a request that died; it may be taken over. */
const ABANDONED_SQL = `interval '2 minutes'`;

/** Unanswered claims as leased work: claim_token is the token; released, a claim is forgotten. */
export const idempotencyLeases = new LeasedWork({
  table: 'idempotency_keys',
  token: 'claim_token',
  held: 'response_status IS NULL',
  released: 'delete',
});

const inProgress = () =>
  new ApiError('concurrent_idempotent_requests', 'Same idempotency key used while original request is still in progress. Try the request again later.');

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A key's first request: its body's hash, and its response once it has one. */
interface StoredKeyRow {
  request_hash: string;
  response_status: number | null;
  response_body: unknown;
}

export type IdempotencyOutcome =
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'claimed'; save: (q: Queryable, status: number, body: unknown) => Promise<void>; release: () => Promise<void> };

/** `claimedBy`: the node id of this process's presence, if it keeps one (the worker role runs beside the api/smtp role). */
export async function claimIdempotencyKey(
  db: Db,
  accountId: string,
  endpoint: string,
  key: string,
  body: unknown,
  claimedBy?: string,
): Promise<IdempotencyOutcome> {
  if (key.length < 1 || key.length > 256) {
    throw new ApiError('invalid_idempotency_key', 'Idempotency keys, if present, must have between 1 and 256 characters.', 400);
  }
  const hash = crypto
    .createHash('sha256')
    .update(canonical(body ?? null))
    .digest('hex');
  const args = [accountId, endpoint, key];
  const token = crypto.randomUUID();
  const claimed = await db.one(
    `INSERT INTO idempotency_keys AS k (account_id, endpoint, key, request_hash, claimed_by, claim_token) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (account_id, endpoint, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, created_at = now(), response_status = NULL, response_body = NULL,
           claimed_by = EXCLUDED.claimed_by, claim_token = EXCLUDED.claim_token
       WHERE k.created_at < now() - ${LIFETIME_SQL}
          OR (k.response_status IS NULL AND k.request_hash = EXCLUDED.request_hash AND k.created_at < now() - ${ABANDONED_SQL})
     RETURNING 1`,
    [...args, hash, claimedBy ?? null, token],
  );
  if (!claimed) {
    const row = await db.one<StoredKeyRow>(
      'SELECT request_hash, response_status, response_body FROM idempotency_keys WHERE account_id = $1 AND endpoint = $2 AND key = $3',
      args,
    );
    if (!row) return claimIdempotencyKey(db, accountId, endpoint, key, body, claimedBy); // expired, purged or released meanwhile
    if (row.request_hash !== hash) {
      throw new ApiError('invalid_idempotent_request', 'Same idempotency key used with a different request payload. Change your idempotency key or payload.');
    }
    if (row.response_status === null) throw inProgress();
    return { kind: 'replay', status: row.response_status, body: row.response_body };
  }
  return {
    kind: 'claimed',
    /** Throws 409 when the claim is no longer this request's: in the work's transaction, the work is not committed either. */
    async save(q, status, responseBody) {
      const saved = await q.query(
        `UPDATE idempotency_keys SET response_status = $4, response_body = $5, claimed_by = NULL, claim_token = NULL
          WHERE account_id = $1 AND endpoint = $2 AND key = $3 AND ${idempotencyLeases.fence('$6')} RETURNING 1`,
        [...args, status, JSON.stringify(responseBody), token],
      );
      if (saved.length === 0) throw inProgress();
    },
    /** After a failed request: forget the claim, if it is still this request's and unanswered. */
    async release() {
      await db.query(`DELETE FROM idempotency_keys WHERE account_id = $1 AND endpoint = $2 AND key = $3 AND ${idempotencyLeases.fence('$4')}`, [
        ...args,
        token,
      ]);
    },
  };
}

export async function purgeExpiredIdempotencyKeys(db: Db): Promise<void> {
  await db.query(`DELETE FROM idempotency_keys WHERE created_at < now() - ${LIFETIME_SQL}`);
}
