// Dashboard users: created with a one-time set-password link (`postline users create`), or,
// on a database with no user at all, through the set-up link the api role logs at start. A
// link carries a random token in its fragment (never sent in a request line or a Referer);
// only its SHA-256 is stored, and it is used once, within an hour.
import crypto from 'node:crypto';
import { ApiError, validation } from '../api/errors.js';
import { isUuid } from '../api/format.js';
import type { Db, Queryable } from '../db/database.js';
import { hashPassword } from './passwords.js';

const LINK_LIFETIME = '1 hour';

export class UserCommandError extends Error {}

const sha256 = (token: string) => crypto.createHash('sha256').update(token).digest();

/** The page that uses a token; `setup` marks the first-run link, whose page also asks for the address. */
export const setPasswordLink = (publicUrl: string, token: string, options: { setup?: boolean } = {}) =>
  `${publicUrl}/dashboard/set-password#token=${token}${options.setup ? '&setup=1' : ''}`;

async function newPasswordToken(q: Queryable, userId: string | null): Promise<string> {
  const token = crypto.randomBytes(32).toString('base64url');
  await q.query(`INSERT INTO password_tokens (token_hash, user_id, expires_at) VALUES ($1, $2, now() + interval '${LINK_LIFETIME}')`, [sha256(token), userId]);
  return token;
}

export function normalizeEmail(raw: string): string | undefined {
  const email = raw.trim().toLowerCase();
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) && email.length <= 254 ? email : undefined;
}

/** `postline users create --account NAME_OR_ID EMAIL`: the user, and the token of its set-password link. */
export async function createUser(db: Db, account: string, rawEmail: string): Promise<{ userId: string; token: string }> {
  const email = normalizeEmail(rawEmail);
  if (!email) throw new UserCommandError(`"${rawEmail}" is not an email address`);
  const accounts = await db.query<{ id: string }>('SELECT id FROM accounts WHERE name = $1 OR ($2::uuid IS NOT NULL AND id = $2::uuid)', [
    account,
    isUuid(account) ? account : null,
  ]);
  if (accounts.length === 0) throw new UserCommandError(`no account named or with the id "${account}"`);
  if (accounts.length > 1) throw new UserCommandError(`${accounts.length} accounts are named "${account}": give its id`);
  const userId = crypto.randomUUID();
  return db.tx(async (q) => {
    const inserted = await q.query('INSERT INTO users (id, account_id, email) VALUES ($1, $2, $3) ON CONFLICT (email) DO NOTHING RETURNING id', [
      userId,
      accounts[0]!.id,
      email,
    ]);
    if (inserted.length === 0) throw new UserCommandError(`a user with the address ${email} exists`);
    return { userId, token: await newPasswordToken(q, userId) };
  });
}

/** While no user exists: the token of a set-up link that creates the first user; undefined once any user exists. */
export async function firstRunSetupToken(db: Db): Promise<string | undefined> {
  if (await db.one('SELECT 1 FROM users LIMIT 1')) return undefined;
  return newPasswordToken(db, null);
}

/**
 * Uses a set-password link: sets its user's password, or for the set-up link creates the
 * first user with `email`. The token is spent in the same transaction. Returns the user's id.
 * The password's length (MIN_PASSWORD_LENGTH to MAX_PASSWORD_LENGTH) is checked by the route's
 * schema (routes.ts).
 */
export async function setPasswordWithToken(db: Db, token: string, password: string, email: string | undefined): Promise<string> {
  const passwordHash = await hashPassword(password);
  return db.tx(async (q) => {
    const link = await q.one<{ user_id: string | null }>('DELETE FROM password_tokens WHERE token_hash = $1 AND expires_at > now() RETURNING user_id', [
      sha256(token),
    ]);
    if (!link) throw new ApiError('invalid_password_link', 'This link has expired or has been used. Ask for a new one.');
    if (link.user_id) {
      await q.query('UPDATE users SET password_hash = $2 WHERE id = $1', [link.user_id, passwordHash]);
      // A new password ends every session signed in with the old one.
      await q.query('DELETE FROM user_sessions WHERE user_id = $1', [link.user_id]);
      return link.user_id;
    }
    const address = email === undefined ? undefined : normalizeEmail(email);
    if (!address) throw validation('Give the email address you will sign in with.');
    await q.query('SELECT pg_advisory_xact_lock(7452302)'); // the bootstrap key's lock: one "Default" account
    // The set-up link makes the first user only: once anyone can sign in, users are made with the CLI.
    if (await q.one('SELECT 1 FROM users LIMIT 1')) throw new ApiError('invalid_password_link', 'A user exists already: this set-up link no longer works.');
    // The oldest account, as POSTLINE_BOOTSTRAP_API_KEY's; on an empty installation a "Default" one.
    let account = await q.one<{ id: string }>('SELECT id FROM accounts ORDER BY created_at, id LIMIT 1');
    if (!account) {
      account = { id: crypto.randomUUID() };
      await q.query(`INSERT INTO accounts (id, name) VALUES ($1, 'Default')`, [account.id]);
    }
    const userId = crypto.randomUUID();
    await q.query('INSERT INTO users (id, account_id, email, password_hash) VALUES ($1, $2, $3, $4)', [userId, account.id, address, passwordHash]);
    return userId;
  });
}
