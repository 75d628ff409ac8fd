// Outbound SMTP connections. nodemailer's SMTPConnection speaks the protocol (EHLO, STARTTLS,
// AUTH, MAIL/RCPT/DATA with dot-stuffing); this file only decides when to open, reuse and
// close connections:
// - a session released after a message stays idle for a few seconds, and the next message for
//   the same host takes it instead of opening a new one (RSET first if the last one failed);
// - a host that refused a connection is not tried again for a short while (`downMs`), so a
//   batch of mail for a dead MX moves on to the next MX at once instead of timing out N times.
// - every session upgrades with STARTTLS when offered and does not fail the handshake on the
//   certificate (RFC 7435: most MX hosts present certificates for names we cannot check); what
//   the target's TLS requirement asks (tls-policy/requirement.ts: the sender's tls: enforced,
//   the recipient's MTA-STS policy, DANE) is checked on the open session before it carries
//   mail, and a session that falls short is closed with the reason.
import type tls from 'node:tls';
import net from 'node:net';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { checkSession, requirementKey, type SessionTls, type TlsCheck } from '../tls-policy/requirement.js';
import type { Target } from './route.js';

interface PoolOptions {
  /** EHLO name (POSTLINE_SMTP_HOSTNAME). */
  ehloName: string;
  /** How long an unused connection stays open for reuse. */
  idleMs: number;
  /** How long a host that could not be reached is skipped. */
  downMs: number;
  /** At most this many idle connections in total; the oldest go first. */
  maxIdle: number;
  /** Told of every new session's TLS check against its target's requirement, with the session's addresses (TLS reports count them). */
  onTlsChecked?: (target: Target, check: TlsCheck, addresses: { local: string; remote: string }) => void;
}

/** Could not get a session with the target: try the next one. `tls`: it was refused for falling short of its TLS requirement. */
export class ConnectError extends Error {
  constructor(
    message: string,
    readonly tls = false,
  ) {
    super(message);
  }
}

export type SendResult =
  | { ok: true; info: SMTPConnection.SentMessageInfo }
  | { ok: false; error: SMTPConnection.SMTPError & { rejectedErrors?: SMTPConnection.SMTPError[] } };

// Bounded so one attempt always ends well inside the claim lease (worker.ts).
const TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 30_000, socketTimeout: 60_000, socketCloseTimeout: 2_000 };

export class SmtpSession {
  private closed = false;
  private dirty = false;
  messages = 0;
  idleTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly key: string,
    readonly target: Target,
    private conn: SMTPConnection,
    /** The session's TLS, as it was when it opened. */
    readonly tls: SessionTls,
  ) {
    conn.on('error', () => (this.closed = true));
    conn.on('end', () => (this.closed = true));
  }

  get usable(): boolean {
    return !this.closed && !this.conn.destroyed;
  }

  /** Sends one message; server refusals come back as results, never as exceptions. */
  send(from: string, to: string[], mime: Buffer): Promise<SendResult> {
    this.messages++;
    return new Promise((resolve) => {
      this.conn.send({ from, to, size: mime.length }, mime, (err, info) => {
        if (err) {
          this.dirty = true; // MAIL FROM may still be open on the server side
          resolve({ ok: false, error: err });
        } else resolve({ ok: true, info: info! });
      });
    });
  }

  /** Makes the session ready for the next message; false when it cannot be reused. */
  async prepare(): Promise<boolean> {
    if (!this.usable) return false;
    if (!this.dirty) return true;
    const reset = await new Promise<boolean>((resolve) => this.conn.reset((err) => resolve(!err)));
    this.dirty = !reset;
    return reset && this.usable;
  }

  close(): void {
    clearTimeout(this.idleTimer);
    this.closed = true;
    if (this.conn.destroyed) return;
    try {
      this.conn.quit();
    } catch {
      this.conn.close();
    }
  }
}

export class SmtpPool {
  private idle = new Map<string, SmtpSession[]>();
  private idleCount = 0;
  private down = new Map<string, { until: number; reason: string; tls: boolean }>();

  constructor(private options: PoolOptions) {}

  /** An open session with the target (from `localAddress`, when given): an idle one when there is one, else a new one. */
  async acquire(target: Target, localAddress?: string): Promise<SmtpSession> {
    const key = `${keyOf(target)} ${requirementKey(target.tls, target.host)}${localAddress ? ` from ${localAddress}` : ''}`;
    for (let session = this.takeIdle(key); session; session = this.takeIdle(key)) {
      if (await session.prepare()) return session;
      session.close();
    }
    const down = this.down.get(key);
    if (down && down.until > Date.now()) throw new ConnectError(down.reason, down.tls);
    if (down) this.down.delete(key);
    let conn: SMTPConnection;
    try {
      conn = await this.connect(target, localAddress);
    } catch (err) {
      throw this.markDown(key, `${describe(target)}: ${(err as Error).message}`, false);
    }
    const session = new SmtpSession(key, target, conn, sessionTls(conn));
    const check = checkSession(target.tls, session.tls, target.host);
    this.options.onTlsChecked?.(target, check, addressesOf(conn));
    if (check.ok || check.reportOnly) return session;
    session.close();
    throw this.markDown(key, `${describe(target)}: ${check.reason}`, true);
  }

  /** A host that failed is skipped for a while (for this TLS requirement only, when that is why). */
  private markDown(key: string, reason: string, tls: boolean): ConnectError {
    this.down.set(key, { until: Date.now() + this.options.downMs, reason, tls });
    return new ConnectError(reason, tls);
  }

  /**
   * Gives a session back after a message; kept for reuse while it is healthy and has carried
   * fewer than `maxMessages` (its destination's shaping limit; Postfix's smtp_connection_reuse_count_limit).
   */
  release(session: SmtpSession, maxMessages: number): void {
    if (!session.usable || session.messages >= maxMessages) return session.close();
    let list = this.idle.get(session.key);
    if (!list) this.idle.set(session.key, (list = []));
    list.push(session);
    this.idleCount++;
    session.idleTimer = setTimeout(() => this.evict(session), this.options.idleMs);
    session.idleTimer.unref();
    if (this.idleCount > this.options.maxIdle) this.evictOldest();
  }

  /** Closes every idle session (shutdown). Sessions in use close when released. */
  closeAll(): void {
    for (const list of this.idle.values()) for (const session of list) session.close();
    this.idle.clear();
    this.idleCount = 0;
  }

  private takeIdle(key: string): SmtpSession | undefined {
    const session = this.idle.get(key)?.pop(); // most recently used: least likely timed out
    if (!session) return undefined;
    this.idleCount--;
    clearTimeout(session.idleTimer);
    return session;
  }

  private evict(session: SmtpSession): void {
    const list = this.idle.get(session.key);
    const i = list?.indexOf(session) ?? -1;
    if (i < 0) return;
    list!.splice(i, 1);
    if (list!.length === 0) this.idle.delete(session.key);
    this.idleCount--;
    session.close();
  }

  private evictOldest(): void {
    const [key, list] = this.idle.entries().next().value ?? [];
    if (key !== undefined && list?.[0]) this.evict(list[0]);
  }

  private connect(target: Target, localAddress: string | undefined): Promise<SMTPConnection> {
    const conn = new SMTPConnection({
      host: target.address ?? target.host,
      localAddress,
      port: target.port,
      secure: target.secure,
      servername: net.isIP(target.host) ? undefined : target.host, // SNI takes names only (RFC 6066)
      name: this.options.ehloName,
      opportunisticTLS: true,
      // Checked on the open session instead (checkSession), so a refusal can say why.
      tls: { rejectUnauthorized: false },
      logger: false,
      ...TIMEOUTS,
    });
    // SMTPConnection emits 'error' (which would throw without a listener) for any late socket
    // failure; the session reads the state from `destroyed` instead.
    conn.on('error', () => {});
    return new Promise<SMTPConnection>((resolve, reject) => {
      const fail = (err: Error) => {
        conn.close();
        reject(err);
      };
      const onEnd = () => reject(new Error('connection closed during the handshake'));
      conn.once('error', fail);
      conn.once('end', onEnd);
      conn.connect(() => {
        conn.off('error', fail).off('end', onEnd);
        if (!target.auth) return resolve(conn);
        conn.login(target.auth, (err) => (err ? fail(err) : resolve(conn)));
      });
    });
  }
}

/** The TLS of a connected session. nodemailer keeps the upgraded socket in `_socket`; it has no public accessor. */
function sessionTls(conn: SMTPConnection): SessionTls {
  const socket = (conn as unknown as { _socket?: tls.TLSSocket })._socket;
  if (!conn.secure || !socket || typeof socket.getPeerCertificate !== 'function') {
    return { encrypted: false, protocol: null, authorized: false, authorizationError: null, peer: null };
  }
  const peer = socket.getPeerCertificate(true);
  return {
    encrypted: true,
    protocol: socket.getProtocol(),
    authorized: socket.authorized,
    authorizationError: socket.authorizationError ? String(socket.authorizationError) : null,
    peer: peer && Object.keys(peer).length > 0 ? peer : null,
  };
}

function addressesOf(conn: SMTPConnection): { local: string; remote: string } {
  const socket = (conn as unknown as { _socket?: net.Socket })._socket;
  return { local: socket?.localAddress ?? '', remote: socket?.remoteAddress ?? '' };
}

function keyOf(target: Target): string {
  return `${target.address ?? target.host}:${target.port}${target.secure ? ':tls' : ''}${target.auth ? `:${target.auth.user}` : ''}`;
}

export function describe(target: Target): string {
  return target.address && target.address !== target.host ? `${target.host} [${target.address}]:${target.port}` : `${target.host}:${target.port}`;
}
