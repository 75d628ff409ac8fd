// Connection policy: at most smtpMaxConnectionsPerIp open connections per client address
// (over all ports), so one client cannot hold every slot with idle or trickling sessions;
// and AUTH is neither offered nor accepted before TLS (RFC 4954 §4: credentials never cross
// the network in clear), on the STARTTLS ports until the client has upgraded. While the
// server stops, new sessions get 421 (try again later) and open ones may finish.
import type { SMTPServerSession } from 'smtp-server';
// AUTH while it is disabled here is answered 538 5.7.11, not as an unknown command.
import './auth-before-tls.js';
import { REPLIES } from './replies.js';
import { stateOf } from './session.js';

/**
 * smtp-server answers sendmail's old WIZ, SHELL and KILL in jest (WIZ with any password:
 * `200 Please pass, oh mighty wizard`, a code RFC 5321 does not have); here they are unknown
 * commands like any other (500 5.5.2).
 */
const SENDMAIL_JOKES = ['WIZ', 'SHELL', 'KILL'];

export class ConnectionPolicy {
  private open = new Map<string, number>();
  /** Set when the server stops: new sessions are told to come back later (421). */
  draining = false;

  constructor(private maxPerAddress: number) {}

  onConnect = (session: SMTPServerSession, callback: (err?: Error | null) => void): void => {
    if (this.draining) return callback(REPLIES.shuttingDown());
    const count = this.open.get(session.remoteAddress) ?? 0;
    if (count >= this.maxPerAddress) return callback(REPLIES.tooManyConnectionsFromAddress());
    this.open.set(session.remoteAddress, count + 1);
    stateOf(session).counted = true;
    // A session-level list replaces the server's disabledCommands, for EHLO and for commands.
    session.disabledCommands = session.secure ? [...SENDMAIL_JOKES] : ['AUTH', ...SENDMAIL_JOKES];
    callback();
  };

  onSecure = (_socket: unknown, session: SMTPServerSession, callback: (err?: Error | null) => void): void => {
    session.disabledCommands = [...SENDMAIL_JOKES];
    callback();
  };

  onClose = (session: SMTPServerSession): void => {
    const state = stateOf(session);
    if (!state.counted) return;
    state.counted = false;
    const count = (this.open.get(session.remoteAddress) ?? 1) - 1;
    if (count > 0) this.open.set(session.remoteAddress, count);
    else this.open.delete(session.remoteAddress);
  };

  /** Open connections, all addresses. */
  get connections(): number {
    let total = 0;
    for (const n of this.open.values()) total += n;
    return total;
  }
}
