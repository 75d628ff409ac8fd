// Accounts are tenants: every other table hangs off account_id, and every query of a
// concept filters by the caller's account, so one account never sees another's records.
import crypto from 'node:crypto';
import type { Db } from '../db/database.js';
import { hashToken, newToken } from './tokens.js';

interface CreatedAccount {
  accountId: string;
  apiKeyId: string;
  token: string;
}

export async function createAccount(db: Db, name: string): Promise<CreatedAccount> {
  const accountId = crypto.randomUUID();
  const apiKeyId = crypto.randomUUID();
  const token = newToken();
  await db.tx(async (q) => {
    await q.query('INSERT INTO accounts (id, name) VALUES ($1, $2)', [accountId, name]);
    await q.query(`INSERT INTO api_keys (id, account_id, name, token_hash, permission) VALUES ($1, $2, $3, $4, 'full_access')`, [
      apiKeyId,
      accountId,
      'Default',
      hashToken(token),
    ]);
  });
  return { accountId, apiKeyId, token };
}

/**
 * POSTLINE_BOOTSTRAP_API_KEY: make sure a full-access key with this token exists. It belongs
 * to the oldest account, which is created ("Default") on an empty installation.
 */
export async function ensureBootstrapKey(db: Db, token: string): Promise<void> {
  const hash = hashToken(token);
  await db.tx(async (q) => {
    await q.query('SELECT pg_advisory_xact_lock(7452302)'); // many nodes start at once
    if (await q.one('SELECT 1 FROM api_keys WHERE token_hash = $1', [hash])) return;
    let account = await q.one<{ id: string }>('SELECT id FROM accounts ORDER BY created_at, id LIMIT 1');
    if (!account) {
      account = { id: crypto.randomUUID() };
      await q.query(`INSERT INTO accounts (id, name) VALUES ($1, 'Default')`, [account.id]);
    }
    await q.query(`INSERT INTO api_keys (id, account_id, name, token_hash, permission) VALUES ($1, $2, 'Bootstrap', $3, 'full_access')`, [
      crypto.randomUUID(),
      account.id,
      hash,
    ]);
  });
}
