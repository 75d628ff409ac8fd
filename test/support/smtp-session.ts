// A swaks-style raw SMTP client (net/tls sockets, one command at a time or pipelined), for
// what a well-behaved client never sends and for speaking as the simplest remote MTA does.
import assert from 'node:assert/strict';
import net from 'node:net';
import tls from 'node:tls';
import { within } from './eventually.js';

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

  /** Connected and past the server's 220 greeting. */
  static async greeted(port: number): Promise<RawSession> {
    const session = await RawSession.connect(port);
    assert.match(await session.reply(), /^220 /);
    return session;
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

  /** Sends `data` and ends the connection from this side, as a client that hangs up: unlike close(), what was written still arrives. */
  hangUp(data: string | Buffer): void {
    this.socket.end(data);
  }
}
