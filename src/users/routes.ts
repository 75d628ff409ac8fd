// The dashboard's own routes: sign in, set a password from a one-time link, the session it
// runs with (and its anti-forgery token), sign out. Everything else the dashboard does goes
// through the API's ordinary routes, authenticated by the session cookie (http/access.ts).
import { ApiError } from '../api/errors.js';
import type { Principal, Route, RouteContext, RouteResult } from '../api/route.js';
import { boolean, constant, input, object, string, uuid } from '../api/schema.js';
import type { Db } from '../db/database.js';
import { decoyHash, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
import { type Sessions, sessionCookie } from './sessions.js';
import { SignInThrottle } from './sign-in-throttle.js';
import { normalizeEmail, setPasswordWithToken } from './users.js';

const sessionSchema = object({
  object: constant('session'),
  user: object({ id: uuid(), email: string() }),
  account: object({ id: uuid(), name: string() }),
  csrf_token: string({ description: 'Send it back in the X-CSRF-Token header of every request that changes something.' }),
  sandbox: boolean({ description: 'Whether this Postline runs in sandbox mode (POSTLINE_SANDBOX): mail is captured, GET /sandbox/messages lists it.' }),
});

/** A user's address and account (the account's `id` and `name`). */
interface UserAccountRow {
  email: string;
  id: string;
  name: string;
}

export function dashboardSessionRoutes(db: Db, sessions: Sessions, publicUrl: string, sandbox: boolean): Route[] {
  const throttle = new SignInThrottle();
  const publicHost = new URL(publicUrl).host;
  const sameOrigin = (ctx: RouteContext) => checkOrigin(ctx, publicHost);

  /** The answer that starts a session: its cookie, and what GET /dashboard/api/session says. */
  const signedIn = async (userId: string): Promise<RouteResult> => {
    const token = await sessions.create(userId);
    return { body: await describe(userId, token), headers: { 'set-cookie': sessions.cookie(token), 'cache-control': 'no-store' } };
  };
  const describe = async (userId: string, token: string) => {
    const row = await db.one<UserAccountRow>('SELECT u.email, a.id, a.name FROM users u JOIN accounts a ON a.id = u.account_id WHERE u.id = $1', [userId]);
    return {
      object: 'session',
      user: { id: userId, email: row!.email },
      account: { id: row!.id, name: row!.name },
      csrf_token: sessions.csrfToken(token),
      sandbox,
    };
  };

  return [
    {
      method: 'POST',
      url: '/dashboard/api/sign-in',
      access: 'public',
      doc: {
        summary: 'Sign in to the dashboard',
        description: `Sets the session cookie. At most 10 attempts a minute per client address and per address signed in as (429).`,
        addition: true,
        body: input({ email: string({ minLength: 1 }), password: string({ maxLength: MAX_PASSWORD_LENGTH }) }, ['email', 'password']),
        response: { status: 200, schema: sessionSchema, headers: { 'set-cookie': string() } },
      },
      async handler(ctx) {
        sameOrigin(ctx);
        const body = ctx.body as { email: string; password: string };
        const email = normalizeEmail(body.email) ?? '';
        const password = body.password;
        const wait = throttle.attempt(ctx.ip, email);
        if (wait > 0) {
          const err = new ApiError('rate_limit_exceeded', `Too many sign-in attempts. Try again in ${wait} seconds.`);
          return { status: err.statusCode, body: err.toBody(), headers: { 'retry-after': String(wait) } };
        }
        const user = await db.one<{ id: string; password_hash: string | null }>('SELECT id, password_hash FROM users WHERE email = $1', [email]);
        const matches = await verifyPassword(password, user?.password_hash ?? (await decoyHash()));
        if (!user?.password_hash || !matches) throw new ApiError('invalid_credentials', 'Wrong email address or password.');
        return signedIn(user.id);
      },
    },
    {
      method: 'POST',
      url: '/dashboard/api/set-password',
      access: 'public',
      doc: {
        summary: "Set a dashboard user's password from a one-time link",
        description: `The token of a link from \`postline users create\`, or of the set-up link logged at start while there is no user (which also takes the new user's \`email\`). Signs in.`,
        addition: true,
        body: input(
          {
            token: string({ minLength: 1 }),
            // No x-message: its words would quote the password refused.
            password: string({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH }),
            email: string({ minLength: 1, description: 'Set-up link only.' }),
          },
          ['token', 'password'],
        ),
        response: { status: 200, schema: sessionSchema, headers: { 'set-cookie': string() } },
      },
      async handler(ctx) {
        sameOrigin(ctx);
        const { token, password, email } = ctx.body as { token: string; password: string; email?: string };
        const userId = await setPasswordWithToken(db, token, password, email);
        return signedIn(userId);
      },
    },
    {
      method: 'GET',
      url: '/dashboard/api/session',
      doc: {
        summary: 'The dashboard session of the cookie sent',
        description: 'Its user and account, and the anti-forgery token to send with changes. 401 without a session.',
        addition: true,
        response: { status: 200, schema: sessionSchema },
      },
      async handler(ctx) {
        const userId = sessionUser(ctx.principal);
        return { body: await describe(userId, sessionCookie(ctx.headers.cookie)!), headers: { 'cache-control': 'no-store' } };
      },
    },
    {
      method: 'POST',
      url: '/dashboard/api/sign-out',
      doc: {
        summary: 'Sign out of the dashboard',
        description: 'Ends the session and removes its cookie.',
        addition: true,
        response: { status: 200, schema: object({ object: constant('session'), deleted: constant(true) }) },
      },
      async handler(ctx) {
        sessionUser(ctx.principal);
        await sessions.delete(sessionCookie(ctx.headers.cookie)!);
        return { body: { object: 'session', deleted: true }, headers: { 'set-cookie': sessions.clearedCookie() } };
      },
    },
  ];
}

function sessionUser(principal: Principal): string {
  if (!principal.userId) throw new ApiError('invalid_session', 'This route takes the dashboard session cookie, not an API key.');
  return principal.userId;
}

/**
 * Sign-in and set-password take no cookie, so no anti-forgery token: a browser's Origin header
 * must name this host or POSTLINE_PUBLIC_URL's (behind a proxy that rewrites Host). A JSON body
 * already needs a CORS preflight, which is never granted; this also stops a plain form post.
 */
function checkOrigin(ctx: RouteContext, publicHost: string): void {
  const origin = ctx.headers.origin;
  if (typeof origin !== 'string') return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== ctx.headers.host && host !== publicHost) throw new ApiError('invalid_csrf_token', 'Sign in from the dashboard itself.');
}
