// AUTH PLAIN and LOGIN (over TLS only: on-connect.ts hides AUTH before it), as Resend's SMTP
// does: the user name is the literal `resend` (or `postline`), the password an API key. Any
// key may submit (sending is what sending_access keys are for); a key restricted to a domain
// is held to it by the accept pipeline's sender step. Failures are answered slowly and
// counted (auth-throttle.ts); the third on a connection ends it.
import type { SMTPServerAuthentication, SMTPServerAuthenticationResponse, SMTPServerSession } from 'smtp-server';
import type { Principal } from '../api/route.js';
import type { Logger } from '../logger.js';
import type { AuthThrottle } from './auth-throttle.js';
import { REPLIES } from './replies.js';
import { stateOf } from './session.js';

export interface AuthDeps {
  apiKeys: { authenticate(token: string): Promise<Principal | null> };
  throttle: AuthThrottle;
  logger: Logger;
}

const USERS = new Set(['resend', 'postline']);
/** Failed attempts after which a connection is closed (421). */
const MAX_AUTH_FAILURES_PER_CONNECTION = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function onAuth(deps: AuthDeps) {
  return (
    auth: SMTPServerAuthentication,
    session: SMTPServerSession,
    callback: (err: Error | null | undefined, response?: SMTPServerAuthenticationResponse) => void,
  ): void => {
    authenticate(deps, auth, session).then(
      (principal) => callback(null, { user: principal }),
      (err) => callback(err),
    );
  };
}

async function authenticate(deps: AuthDeps, auth: SMTPServerAuthentication, session: SMTPServerSession): Promise<Principal> {
  if (!session.secure) throw REPLIES.authNeedsTls();
  const userKnown = USERS.has((auth.username ?? '').trim().toLowerCase());
  const token = (auth.password ?? '').trim();
  let principal: Principal | null = null;
  if (userKnown && token) {
    try {
      principal = await deps.apiKeys.authenticate(token);
    } catch (err) {
      deps.logger.warn({ err }, 'SMTP AUTH: API key lookup failed');
      throw REPLIES.authUnavailable();
    }
  }
  const state = stateOf(session);
  if (principal) {
    state.authFailures = 0;
    state.token = token;
    return principal;
  }
  state.authFailures++;
  const delay = deps.throttle.fail(session.remoteAddress);
  deps.logger.warn(
    {
      remoteAddress: session.remoteAddress,
      user: (auth.username ?? '').slice(0, 64),
      reason: userKnown ? (token ? 'unknown API key' : 'empty password') : 'user is not resend or postline',
      connectionFailures: state.authFailures,
      totalFailures: deps.throttle.failures,
    },
    'SMTP AUTH failed',
  );
  await sleep(delay);
  if (state.authFailures >= MAX_AUTH_FAILURES_PER_CONNECTION) throw REPLIES.authTooManyFailures();
  throw REPLIES.authInvalid();
}
