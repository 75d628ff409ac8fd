// An MX stand-in that accepts everything and only counts messages (bodies are discarded), for
// benches that need a destination but do not compare against the peers' smtp-sink.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export class CountingSink {
  messages = 0;
  connections = 0;
  /** performance.now() of the first and the latest message since the last reset(). */
  firstAt = 0;
  lastAt = 0;
  port = 0;
  private server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    banner: 'sink.postline-bench.invalid',
    name: 'sink.postline-bench.invalid',
    size: 60 * 1024 * 1024,
    onConnect: (_session, callback) => {
      this.connections++;
      callback();
    },
    onData: (stream, _session, callback) => {
      stream.on('data', () => {});
      stream.on('end', () => {
        this.lastAt = performance.now();
        if (this.messages++ === 0 || this.firstAt === 0) this.firstAt = this.lastAt;
        callback();
      });
    },
  });

  reset(): void {
    this.messages = 0;
    this.firstAt = 0;
    this.lastAt = 0;
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
