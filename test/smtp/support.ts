// Shared by the SMTP tests: a Postline with a verified sending domain and a recipient domain
// whose MX is the sink, nodemailer transports on its STARTTLS and implicit-TLS ports, and a
// swaks-style raw session (net/tls sockets, one command at a time or pipelined) for what a
// well-behaved client never sends.
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import nodemailer from 'nodemailer';
import { createVerifiedDomain } from '../support/domains.js';
import { within } from '../support/eventually.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';

export const SENDER_DOMAIN = 'sender.test';
export const FROM = `Sender <hello@${SENDER_DOMAIN}>`;
/** Recipients here are delivered to the test's MX sink. */
const RECIPIENT_DOMAIN = 'example.net';

export async function startSmtpTest(env: Record<string, string> = {}): Promise<TestPostline> {
  const t = await startTestPostline({ env });
  await createVerifiedDomain(t, SENDER_DOMAIN);
  t.dns.set(RECIPIENT_DOMAIN, { MX: [{ exchange: `mx.${RECIPIENT_DOMAIN}`, priority: 10 }] });
  t.dns.set(`mx.${RECIPIENT_DOMAIN}`, { A: ['127.0.0.1'] });
  return t;
}

export const starttlsPort = (t: TestPostline) => t.postline.smtpPorts.starttls[0]!;
export const implicitPort = (t: TestPostline) => t.postline.smtpPorts.implicit[0]!;

/** nodemailer with the API key as password, on the STARTTLS port (default) or the implicit-TLS port. */
export function transport(t: TestPostline, options: { implicit?: boolean; user?: string; pass?: string } = {}) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port: options.implicit ? implicitPort(t) : starttlsPort(t),
    secure: !!options.implicit,
    requireTLS: !options.implicit,
    auth: { user: options.user ?? 'resend', pass: options.pass ?? t.apiKey },
    tls: { rejectUnauthorized: false }, // the self-signed certificate
  });
}

/** The email id in `250 2.0.0 Ok: queued as <id>`. */
export function queuedId(response: string): string {
  const match = /queued as ([0-9a-f-]{36})/.exec(response);
  assert.ok(match, `no email id in ${JSON.stringify(response)}`);
  return match[1]!;
}

/** A raw SMTP client: replies are read whole (multi-line ones joined with \n). */
export class RawSession {
  private buffer = '';
  private waiting: (() => void) | undefined;
  private closing: Promise<void>;
  isClosed = false;

  private constructor(private socket: net.Socket | tls.TLSSocket) {
    this.closing = new Promise((resolve) => {
      this.listen(socket);
      socket.once('close', () => {
        this.isClosed = true;
        this.waiting?.();
        resolve();
      });
    });
  }

  private listen(socket: net.Socket | tls.TLSSocket): void {
    socket.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('latin1');
      this.waiting?.();
    });
    socket.on('error', () => {});
  }

  /** Resolves when the connection has closed; fails if it is still open after 10 s. */
  get closed(): Promise<void> {
    return within(this.closing, 10_000, 'the SMTP session to close');
  }

  static async connect(port: number, options: { implicit?: boolean } = {}): Promise<RawSession> {
    const socket = options.implicit ? tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }) : net.connect({ host: '127.0.0.1', port });
    const connected = new Promise<void>((resolve, reject) => {
      socket.once(options.implicit ? 'secureConnect' : 'connect', () => resolve());
      socket.once('error', reject);
    });
    await within(connected, 10_000, `a connection to port ${port}`);
    return new RawSession(socket);
  }

  /** The next complete reply, or '' if the server closed the connection first. */
  async reply(timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = /^\d{3} .*\r\n/m.exec(this.buffer);
      if (end) {
        const upTo = end.index + end[0].length;
        const reply = this.buffer.slice(0, upTo).trimEnd().replace(/\r\n/g, '\n');
        this.buffer = this.buffer.slice(upTo);
        return reply;
      }
      if (this.isClosed) return '';
      if (Date.now() > deadline) throw new Error(`no reply within ${timeoutMs} ms (buffer: ${JSON.stringify(this.buffer)})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiting = () => (clearTimeout(timer), resolve());
      });
      this.waiting = undefined;
    }
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Sends one command line and returns its reply. */
  async command(line: string): Promise<string> {
    this.write(`${line}\r\n`);
    return this.reply();
  }

  /** Greeting, EHLO, STARTTLS, EHLO again: a session ready for AUTH. */
  async startTls(): Promise<string> {
    assert.match(await this.command('STARTTLS'), /^220 /);
    const secure = tls.connect({ socket: this.socket as net.Socket, rejectUnauthorized: false });
    const upgraded = new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', () => resolve());
      secure.once('error', reject);
    });
    await within(upgraded, 10_000, 'the TLS handshake after STARTTLS');
    this.socket.removeAllListeners('data');
    this.socket = secure;
    this.listen(secure);
    secure.once('close', () => {
      this.isClosed = true;
      this.waiting?.();
    });
    return this.command('EHLO client.test');
  }

  async login(token: string, user = 'resend'): Promise<string> {
    return this.command(`AUTH PLAIN ${Buffer.from(`\0${user}\0${token}`).toString('base64')}`);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A session on the STARTTLS port, greeted, upgraded and (with a token) authenticated. */
export async function openSession(t: TestPostline, options: { token?: string; tls?: boolean } = {}): Promise<RawSession> {
  const session = await RawSession.connect(starttlsPort(t));
  assert.match(await session.reply(), /^220 mta\.postline\.test ESMTP/);
  assert.match(await session.command('EHLO client.test'), /^250/);
  if (options.tls === false) return session;
  await session.startTls();
  if (options.token) assert.match(await session.login(options.token), /^235 /);
  return session;
}

/** A plain RFC 5322 message. */
export function message(headers: Record<string, string>, body = 'Hello there\r\n'): string {
  return `${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n${body}`;
}

/** MAIL, RCPT(s), DATA, the message and the final dot; returns the reply to the dot (or the first refusal). */
export async function sendRaw(session: RawSession, rcpt: string[], data: string | Buffer, mailFrom = `hello@${SENDER_DOMAIN}`): Promise<string> {
  const mail = await session.command(`MAIL FROM:<${mailFrom}>`);
  if (!mail.startsWith('250')) return mail;
  for (const r of rcpt) {
    const reply = await session.command(`RCPT TO:<${r}>`);
    if (!reply.startsWith('250')) return reply;
  }
  const go = await session.command('DATA');
  if (!go.startsWith('354')) return go;
  session.write(data);
  session.write(typeof data === 'string' && !data.endsWith('\r\n') ? '\r\n.\r\n' : '.\r\n');
  return session.reply();
}

/** Emails of the account with source 'smtp', newest first. */
export async function smtpEmails(t: TestPostline): Promise<any[]> {
  return t.sql(`SELECT id, subject, from_address, to_addresses, cc, bcc, mime, message_id FROM emails WHERE source = 'smtp' ORDER BY created_at DESC`);
}
