// A real SMTP server (smtp-server) standing in for recipients' MX hosts. Each test decides
// how it answers: accept, defer (4xx) a number of times, or reject (5xx), per recipient. With
// a certificate it offers STARTTLS (`tls`); without one it offers none, as many MX hosts do.
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { closeServer } from './eventually.js';

interface ReceivedMessage {
  from: string;
  to: string[];
  raw: Buffer;
  remoteAddress: string;
  secure: boolean;
  /** The TLS protocol of the session (TLSv1.3, …), null in plain text. */
  tlsProtocol: string | null;
  receivedAt: Date;
}

type Verdict = { code: number; message: string } | undefined;

export class MxSink {
  messages: ReceivedMessage[] = [];
  connections = 0;
  /** Connections ended (by the client's QUIT or otherwise). */
  closed = 0;
  /** Decide per recipient (and envelope sender): undefined accepts; a code ≥ 400 refuses at RCPT TO. */
  onRecipient: (address: string, mailFrom: string) => Verdict = () => undefined;
  /** Decide after DATA: undefined accepts. */
  onData: (message: ReceivedMessage) => Verdict = () => undefined;
  /** How long the answer to DATA takes (a busy MX host): the message counts as received before it. */
  answerDelayMs = 0;
  /** DATA answers held back by answerDelayMs right now, and the most at once: sessions mid-transaction in parallel. */
  answering = 0;
  mostAnswering = 0;
  private server: SMTPServer;
  private waiters: { count: number; resolve: () => void }[] = [];
  port = 0;

  constructor(
    private host = '127.0.0.1',
    /** `tls`: the certificate it offers with STARTTLS, and others by the name the client asks for (SNI: one sink, several MX hosts). */
    options: { tls?: { key: string; cert: string; byName?: Record<string, { key: string; cert: string }> } } = {},
  ) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH'],
      ...(options.tls ? { key: options.tls.key, cert: options.tls.cert, sniOptions: options.tls.byName } : { hideSTARTTLS: true }),
      logger: false,
      size: 60 * 1024 * 1024,
      onConnect: (_session, callback) => {
        this.connections++;
        callback();
      },
      onClose: () => {
        this.closed++;
      },
      onRcptTo: (address, session, callback) => {
        const verdict = this.onRecipient(address.address, session.envelope.mailFrom ? session.envelope.mailFrom.address : '');
        if (verdict) return callback(Object.assign(new Error(verdict.message), { responseCode: verdict.code }));
        callback();
      },
      onData: (stream, session: SMTPServerSession, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const message: ReceivedMessage = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks),
            remoteAddress: session.remoteAddress,
            secure: session.secure,
            tlsProtocol: session.secure ? ((session as { tlsOptions?: { version?: string } }).tlsOptions?.version ?? 'TLS') : null,
            receivedAt: new Date(),
          };
          const verdict = this.onData(message);
          if (verdict) return callback(Object.assign(new Error(verdict.message), { responseCode: verdict.code }));
          this.messages.push(message);
          this.notify();
          if (!this.answerDelayMs) return callback();
          this.mostAnswering = Math.max(this.mostAnswering, ++this.answering);
          setTimeout(() => {
            this.answering--;
            callback();
          }, this.answerDelayMs);
        });
      },
    });
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    // A client that goes away without QUIT (a Postline stopping at the end of a test resets its
    // pooled connections) is an error of that session only, as for any real MX host.
    this.server.on('error', () => {});
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  /** Resolves once at least `count` messages have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs = 15_000): Promise<void> {
    if (this.messages.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`sink got ${this.messages.length} of ${count} messages`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  private notify(): void {
    this.waiters = this.waiters.filter((w) => (this.messages.length >= w.count ? (w.resolve(), false) : true));
  }

  async stop(): Promise<void> {
    // smtp-server ends the sessions still open after its closeTimeout (30 s), then calls back.
    await closeServer(this.server, 40_000);
  }
}
