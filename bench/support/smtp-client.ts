// A lean SMTP submission client for the benches: STARTTLS (or implicit TLS), AUTH PLAIN, then
// MAIL / RCPT / DATA one command at a time, each answer awaited, as smtp-source does for the
// peers (no PIPELINING). It exists because the load generator shares the 2 cores with the
// server: nodemailer's SMTPConnection spends ~1.2–1.5 ms of JavaScript per connection, which
// the peers' generator (smtp-source, C, no TLS) does not, so the server measured was starved
// by its client. Here each connection costs a TLS handshake and a few buffer writes.
// The message must already end in CRLF and be dot-stuffed (dotStuffed() does both).
import net from 'node:net';
import tls from 'node:tls';

export interface SubmissionTarget {
  port: number;
  implicit: boolean;
  apiKey: string;
}

interface Message {
  from: string;
  to: string;
  /** dot-stuffed, CRLF line ends, ending in CRLF (dotStuffed()). */
  data: Buffer;
}

/** One context for every connection: tls.connect() would otherwise build one (CA store included) each time. */
const clientContext = tls.createSecureContext();

/** The message as DATA sends it: CRLF line ends, leading dots doubled, a final CRLF. */
export function dotStuffed(raw: Buffer): Buffer {
  let text = raw.toString('latin1').replace(/\r?\n/g, '\r\n');
  if (!text.endsWith('\r\n')) text += '\r\n';
  return Buffer.from(text.replace(/^\./gm, '..'), 'latin1');
}

/** One SMTP session; replies are read in order, one per command sent. */
export class SmtpSession {
  private buffered = '';
  private waiting: { resolve(reply: string): void; reject(err: Error): void } | undefined;
  private failure: Error | undefined;
  private socket: net.Socket;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    this.listen(socket);
  }

  /** Without an apiKey, no AUTH: the session is another MTA delivering inbound mail. */
  static async open(target: Omit<SubmissionTarget, 'apiKey'> & { apiKey?: string }, ehloName = 'client.bench.invalid'): Promise<SmtpSession> {
    const plain = target.implicit
      ? tls.connect({ host: '127.0.0.1', port: target.port, rejectUnauthorized: false, secureContext: clientContext })
      : net.connect({ host: '127.0.0.1', port: target.port });
    plain.setNoDelay(true);
    const session = new SmtpSession(plain);
    await session.expect('220');
    await session.command(`EHLO ${ehloName}`, '250');
    if (!target.implicit) {
      await session.command('STARTTLS', '220');
      await session.upgrade();
      await session.command(`EHLO ${ehloName}`, '250');
    }
    if (target.apiKey !== undefined) {
      const plainAuth = Buffer.from(`\0resend\0${target.apiKey}`).toString('base64');
      await session.command(`AUTH PLAIN ${plainAuth}`, '235');
    }
    return session;
  }

  /** Sends one message; resolves with the final reply (250 …). */
  async send(message: Message): Promise<string> {
    await this.command(`MAIL FROM:<${message.from}>`, '250');
    await this.command(`RCPT TO:<${message.to}>`, '250');
    await this.command('DATA', '354');
    this.socket.write(message.data);
    return this.command('.', '250');
  }

  /** QUIT without waiting for its answer; the socket ends either way. */
  quit(): void {
    if (this.socket.writable) this.socket.end('QUIT\r\n');
    else this.socket.destroy();
  }

  private command(line: string, code: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.expect(code);
  }

  private async expect(code: string): Promise<string> {
    const reply = await this.reply();
    if (!reply.startsWith(code)) throw new Error(`expected ${code}, got: ${reply.trim().slice(0, 200)}`);
    return reply;
  }

  /** The next whole reply (its last line is "NNN text"). */
  private reply(): Promise<string> {
    const whole = this.take();
    if (whole !== undefined) return Promise.resolve(whole);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  private take(): string | undefined {
    let start = 0;
    for (;;) {
      const end = this.buffered.indexOf('\r\n', start);
      if (end < 0) return undefined;
      if (this.buffered[start + 3] !== '-') {
        const reply = this.buffered.slice(0, end + 2);
        this.buffered = this.buffered.slice(end + 2);
        return reply;
      }
      start = end + 2;
    }
  }

  private listen(socket: net.Socket): void {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      if (!this.waiting) return;
      const whole = this.take();
      if (whole === undefined) return;
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve(whole);
    });
    const fail = (err: Error) => {
      this.failure ??= err;
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting?.reject(this.failure);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
  }

  private upgrade(): Promise<void> {
    this.socket.removeAllListeners('data');
    this.socket.removeAllListeners('close');
    this.socket.removeAllListeners('error');
    this.socket.on('error', () => {});
    const secure = tls.connect({ socket: this.socket, rejectUnauthorized: false, secureContext: clientContext });
    this.socket = secure;
    this.listen(secure);
    return new Promise((resolve, reject) => {
      secure.once('secureConnect', () => resolve());
      secure.once('error', reject);
    });
  }
}
