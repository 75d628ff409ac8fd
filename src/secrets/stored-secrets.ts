// The secrets stored in the database, as a whole: at every start, the check that this node has
// the keys they are sealed with (secret_keys lists the keys in use) and the sealing of any still
// in plain text (a database from before secrets were sealed: done once, by whichever node starts
// first with a key); and `postline secrets rotate`, which re-wraps every secret under the current
// key and retires the others. Both go in batches, each row changed only if it still holds the
// value read (a row another node changed meanwhile is read again), so either may be interrupted
// and run again: nothing is lost, nothing is half-sealed.
import { ConfigError } from '../config-readers.js';
import type { Db } from '../db/database.js';
import type { SecretPurpose } from './keyring.js';
import type { SecretBox } from './secret-box.js';

/** Every column that holds a secret, with the row key (as text) that finds it; no table here has columns named key, old or value. */
const STORED: { table: string; key: string; column: string; purpose: SecretPurpose }[] = [
  { table: 'domains', key: 'id::text', column: 'dkim_private_key', purpose: 'dkim-private-key' },
  { table: 'domain_dkim_keys', key: "domain_id::text || ' ' || selector", column: 'private_key', purpose: 'dkim-private-key' },
  { table: 'webhooks', key: 'id::text', column: 'signing_secret', purpose: 'webhook-signing-secret' },
  { table: 'webhooks', key: 'id::text', column: 'previous_signing_secret', purpose: 'webhook-signing-secret' },
  { table: 'server_secrets', key: 'name', column: 'secret', purpose: 'url-signing-secret' },
  { table: 'tls_certificates', key: 'hostname', column: 'private_key', purpose: 'tls-private-key' },
  { table: 'acme_accounts', key: 'directory_url', column: 'account_key', purpose: 'acme-account-key' },
];

const BATCH = 500;

interface SecretKeyRow {
  key_id: string;
}

interface CountRow {
  n: number;
}

/** A stored secret: its row's key (as text) and its value, as rewriteAll selects them. */
interface StoredValueRow {
  key: string;
  value: string;
}

/**
 * Refuses a node whose keys cannot open what is stored (naming the variable), registers its key
 * as in use, and seals what is still in plain text. Returns how many values it sealed.
 */
export async function prepareStoredSecrets(db: Db, box: SecretBox): Promise<number> {
  const inUse = await db.query<SecretKeyRow>('SELECT key_id FROM secret_keys WHERE retired_at IS NULL ORDER BY key_id');
  const missing = inUse.map((r) => r.key_id).filter((id) => !box.keyIds.includes(id));
  if (missing.length > 0) {
    throw new ConfigError(
      `the secrets in the database are sealed with key ${missing.join(', ')}, which this node does not have: set POSTLINE_SECRET_KEY to the key the database was started with (its id is ${box.current.id} now), or during a rotation give the old one in POSTLINE_SECRET_KEY_PREVIOUS`,
    );
  }
  await registerCurrentKey(db, box);
  let sealed = 0;
  for (const place of STORED) {
    sealed += await rewriteAll(db, place, `${place.column} NOT LIKE 'plsec1.%'`, (value) => box.seal(value, place.purpose));
  }
  return sealed;
}

/** `postline secrets rotate`: every secret re-wrapped under the current key; the other keys retired. */
export async function rotateStoredSecrets(db: Db, box: SecretBox): Promise<{ rewrapped: number; retired: string[]; left: number }> {
  await prepareStoredSecrets(db, box);
  const current = box.current.id;
  let rewrapped = 0;
  for (const place of STORED) {
    rewrapped += await rewriteAll(db, place, `${place.column} NOT LIKE $1`, (value) => box.rewrap(value, place.purpose), [`plsec1.${current}.%`]);
  }
  // Retired only once nothing sealed with them is left (a value written by a node still sealing
  // with an old key during the rotation keeps that key in use: run the command again).
  let left = 0;
  for (const place of STORED) {
    const [row] = await db.query<CountRow>(
      `SELECT count(*)::int AS n FROM ${place.table} WHERE ${place.column} LIKE 'plsec1.%' AND ${place.column} NOT LIKE $1`,
      [`plsec1.${current}.%`],
    );
    left += row!.n;
  }
  if (left > 0) return { rewrapped, retired: [], left };
  const retired = await db.query<SecretKeyRow>('UPDATE secret_keys SET retired_at = now() WHERE key_id <> $1 AND retired_at IS NULL RETURNING key_id', [
    current,
  ]);
  return { rewrapped, retired: retired.map((r) => r.key_id), left };
}

async function registerCurrentKey(db: Db, box: SecretBox): Promise<void> {
  await db.query('INSERT INTO secret_keys (key_id) VALUES ($1) ON CONFLICT (key_id) DO UPDATE SET retired_at = NULL', [box.current.id]);
}

/** Rewrites, batch by batch, every value of a column that `where` selects; how many it changed. */
async function rewriteAll(db: Db, place: (typeof STORED)[number], where: string, rewrite: (value: string) => string, params: unknown[] = []): Promise<number> {
  const { table, key, column } = place;
  let changed = 0;
  for (;;) {
    const rows = await db.query<StoredValueRow>(
      `SELECT ${key} AS key, ${column} AS value FROM ${table} t WHERE ${column} IS NOT NULL AND ${where} LIMIT ${BATCH}`,
      params,
    );
    if (rows.length === 0) return changed;
    const values = rows.map((r) => rewrite(r.value));
    const updated = await db.query(
      `UPDATE ${table} t SET ${column} = v.value
         FROM unnest($1::text[], $2::text[], $3::text[]) AS v(key, old, value)
        WHERE (${key}) = v.key AND t.${column} = v.old
    RETURNING 1`,
      [rows.map((r) => String(r.key)), rows.map((r) => r.value), values],
    );
    changed += updated.length;
    // Values that are neither sealed nor re-wrapped by this pass would loop forever: stop.
    if (rows.every((r, i) => values[i] === r.value)) return changed;
  }
}
