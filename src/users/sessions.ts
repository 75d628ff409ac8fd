// Dashboard sessions: a signed-in browser holds a random token in an HttpOnly cookie; the
// database keeps its SHA-256 (user_sessions). A session ends after `idleMs` without a request,
// MAX_AGE after sign-in whatever the activity, or at sign-out. Its anti-forgery token is an
// HMAC of the cookie's token: the page reads it from GET /dashboard/api/session (a cross-site
// page cannot read that answer, nor the cookie) and sends it back in X-CSRF-Token on every change.
import crypto from 'node:crypto';
import type { Db } from '../db/database.js';

const SESSION_COOKIE = 'postline_session';
const MAX_AGE_MS = 7 * 86_400_000;

interface SessionUser {
  userId: string;
  accountId: string;
  email: string;
}

const sha256 = (token: string) => crypto.createHash('sha256').update(token).digest();

/** The session token from a Cookie header, if it has one. */
export function sessionCookie(header: string | string[] | undefined): string | undefined {
  for (const part of (Array.isArray(header) ? header.join(';') : (header ?? '')).split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/** A live session's user, and whether its last-seen time is due to be written again. */
interface SessionRow {
  user_id: string;
  account_id: string;
  email: string;
  stale: boolean;
}

export class Sessions {
  constructor(
    private db: Db,
    private options: { idleMs: number; secureCookie: boolean },
  ) {}

  /** A new session for the user; its token goes in the cookie. */
  async create(userId: string): Promise<string> {
    const token = crypto.randomBytes(32).toString('base64url');
    await this.db.query(`INSERT INTO user_sessions (token_hash, user_id, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')`, [
      sha256(token),
      userId,
      MAX_AGE_MS,
    ]);
    // Sessions that ended are deleted by the next sign-in of the same user: no sweeper needed.
    await this.db.query(`DELETE FROM user_sessions WHERE user_id = $1 AND (expires_at <= now() OR last_seen_at <= now() - $2 * interval '1 millisecond')`, [
      userId,
      this.options.idleMs,
    ]);
    return token;
  }

  /** The session's user while it lasts; each use moves its idle deadline (written at most every minute). */
  async authenticate(token: string): Promise<SessionUser | undefined> {
    const row = await this.db.one<SessionRow>(
      `SELECT s.user_id, u.account_id, u.email, now() - s.last_seen_at > $2 * interval '1 millisecond' AS stale
         FROM user_sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = $1 AND s.expires_at > now() AND s.last_seen_at > now() - $3 * interval '1 millisecond'`,
      [sha256(token), Math.min(60_000, this.options.idleMs / 4), this.options.idleMs],
    );
    if (!row) return undefined;
    if (row.stale) await this.db.query('UPDATE user_sessions SET last_seen_at = now() WHERE token_hash = $1', [sha256(token)]);
    return { userId: row.user_id, accountId: row.account_id, email: row.email };
  }

  async delete(token: string): Promise<void> {
    await this.db.query('DELETE FROM user_sessions WHERE token_hash = $1', [sha256(token)]);
  }

  /** The session's anti-forgery token. */
  csrfToken(sessionToken: string): string {
    return crypto.createHmac('sha256', sessionToken).update('postline csrf').digest('base64url');
  }

  /** Whether a request's X-CSRF-Token header is the session's (constant-time). */
  csrfMatches(sessionToken: string, header: string | string[] | undefined): boolean {
    if (typeof header !== 'string') return false;
    const expected = Buffer.from(this.csrfToken(sessionToken));
    const given = Buffer.from(header);
    return given.length === expected.length && crypto.timingSafeEqual(given, expected);
  }

  /** Set-Cookie for a new session; Secure when POSTLINE_PUBLIC_URL is https. */
  cookie(token: string): string {
    return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${MAX_AGE_MS / 1000}${this.options.secureCookie ? '; Secure' : ''}`;
  }

  /** Set-Cookie that removes the cookie (sign-out, an ended session). */
  clearedCookie(): string {
    return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${this.options.secureCookie ? '; Secure' : ''}`;
  }
}
