// An MX stand-in that offers STARTTLS, for benches whose delivery must be encrypted (Postfix's
// smtp-sink, the peers' sink, speaks no TLS): smtp-server with the certificate it is given,
// accepting every message and only counting them, in a process of its own so that its TLS and
// parsing do not share the measured process's CPU (it shows as "other" in CpuMeter's shares).
// The bench forks this file (startTlsSink); run as a child it listens on 127.0.0.1 and answers
// the parent over the IPC channel:
//   parent → { expect: n }   child → { reached: n } once n messages arrived (at once if they have)
//   parent → { stats: true } child → { stats: TlsSinkStats }
import { fork, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';

interface TlsSinkStats {
  messages: number;
  /** Of which received in plain text (none when every client upgraded). */
  plainMessages: number;
  connections: number;
  /** STARTTLS handshakes completed. */
  tlsSessions: number;
}

interface TlsSink {
  port: number;
  pid: number;
  /** Resolves (in the parent's clock) as soon as the sink has counted `n` messages; rejects after `timeoutMs`. */
  reached(n: number, timeoutMs: number): Promise<void>;
  stats(): Promise<TlsSinkStats>;
  stop(): Promise<void>;
}

const self = fileURLToPath(import.meta.url);

/** Starts the sink process with this key and certificate (PEM); resolves once it listens. */
export async function startTlsSink(tls: { key: string; cert: string }): Promise<TlsSink> {
  const child: ChildProcess = fork(self, ['--child'], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, TLS_SINK_KEY: tls.key, TLS_SINK_CERT: tls.cert },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = <T>(key: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: any) => {
        if (!(key in message)) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(message[key] as T);
      };
      const onExit = (code: number | null) => {
        child.off('message', onMessage);
        reject(new Error(`the TLS sink exited (${code}) while the bench waited for "${key}"`));
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const port = await next<number>('listening');
  return {
    port,
    pid: child.pid!,
    async reached(n, timeoutMs) {
      const reached = next<number>('reached');
      child.send({ expect: n });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the TLS sink did not count ${n} messages within ${timeoutMs / 1000} s`)), timeoutMs);
      });
      try {
        await Promise.race([reached, timeout]);
      } finally {
        clearTimeout(timer);
        reached.catch(() => {});
      }
    },
    async stats() {
      const stats = next<TlsSinkStats>('stats');
      child.send({ stats: true });
      return stats;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function runChild(): void {
  const stats: TlsSinkStats = { messages: 0, plainMessages: 0, connections: 0, tlsSessions: 0 };
  let expected = Infinity;
  const report = () => {
    if (stats.messages < expected) return;
    process.send!({ reached: stats.messages });
    expected = Infinity;
  };
  const server = new SMTPServer({
    key: process.env.TLS_SINK_KEY,
    cert: process.env.TLS_SINK_CERT,
    authOptional: true,
    disabledCommands: ['AUTH'],
    logger: false,
    banner: 'tls-sink.postline-bench.invalid',
    size: 60 * 1024 * 1024,
    onConnect: (_session, callback) => {
      stats.connections++;
      callback();
    },
    onSecure: (_socket, _session, callback) => {
      stats.tlsSessions++;
      callback();
    },
    onData: (stream, session, callback) => {
      stream.on('data', () => {});
      stream.on('end', () => {
        stats.messages++;
        if (!session.secure) stats.plainMessages++;
        callback();
        report();
      });
    },
  });
  // A client that goes away without QUIT (Postline stopping with pooled sessions open) is that session's error only.
  server.on('error', () => {});
  process.on('message', (message: any) => {
    if (message.expect !== undefined) {
      expected = message.expect;
      report();
    }
    if (message.stats) process.send!({ stats });
  });
  process.on('disconnect', () => process.exit(0));
  process.once('SIGTERM', () => process.exit(0));
  server.listen(0, '127.0.0.1', () => process.send!({ listening: (server.server.address() as AddressInfo).port }));
}

if (process.argv[1] === self && process.argv[2] === '--child') runChild();
