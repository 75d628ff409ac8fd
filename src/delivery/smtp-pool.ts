// Outbound SMTP connections. nodemailer's SMTPConnection speaks the protocol (EHLO, STARTTLS,
// AUTH, MAIL/RCPT/DATA with dot-stuffing); this file only decides when to open, reuse and
// close connections:
// - a session released after a message stays idle for a few seconds, and the next message for
//   the same host takes it instead of opening a new one (RSET first if the last one failed);
// - a host that refused a connection is not tried again for a short while (`downMs`), so a
//   batch of mail for a dead MX moves on to the next MX at once instead of timing out N times.
// STARTTLS is opportunistic and certificates are not verified: MX hosts mostly present
// certificates for names we cannot check (RFC 7435); a failed upgrade continues in plain text.
import net from 'node:net';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
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
}

/** Could not get a session with the target: try the next one. */
export class ConnectError extends Error {}

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
  private down = new Map<string, { until: number; reason: string }>();

  constructor(private options: PoolOptions) {}

  /** An open session with the target (from `localAddress`, when given): an idle one when there is one, else a new one. */
  async acquire(target: Target, localAddress?: string): Promise<SmtpSession> {
    const key = localAddress ? `${keyOf(target)} from ${localAddress}` : keyOf(target);
    for (let session = this.takeIdle(key); session; session = this.takeIdle(key)) {
      if (await session.prepare()) return session;
      session.close();
    }
    const down = this.down.get(key);
    if (down && down.until > Date.now()) throw new ConnectError(down.reason);
    if (down) this.down.delete(key);
    try {
      return new SmtpSession(key, target, await this.connect(target, localAddress));
    } catch (err) {
      const reason = `${describe(target)}: ${(err as Error).message}`;
      this.down.set(key, { until: Date.now() + this.options.downMs, reason });
      throw new ConnectError(reason);
    }
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

function keyOf(target: Target): string {
  return `${target.address ?? target.host}:${target.port}${target.secure ? ':tls' : ''}${target.auth ? `:${target.auth.user}` : ''}`;
}

export function describe(target: Target): string {
  return target.address && target.address !== target.host ? `${target.host} [${target.address}]:${target.port}` : `${target.host}:${target.port}`;
}
