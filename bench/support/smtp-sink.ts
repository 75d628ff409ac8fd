// Postfix's smtp-sink (the peers' sink, C) as the recipients' MX host of a bench, on a port of
// its own: it accepts every message and counts nothing we read, so its CPU is the same small
// share Postfix's deliveries cost in the peers' runs.
import { spawn } from 'node:child_process';
import net from 'node:net';

export async function startSmtpSink(port: number): Promise<{ port: number; stop(): void }> {
  const child = spawn('smtp-sink', ['-u', 'nobody', '-4', '-h', 'sink.postline-bench.invalid', `127.0.0.1:${port}`, '1024'], { stdio: 'ignore' });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`smtp-sink exited with ${code}`))));
  exited.catch(() => {});
  for (let tries = 0; ; tries++) {
    const listening = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (listening) break;
    if (tries > 50 || child.exitCode !== null) throw new Error('smtp-sink did not start (is Postfix installed? bench/smtp-vs-peers.sh sets it up)');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, stop: () => child.kill() };
}
