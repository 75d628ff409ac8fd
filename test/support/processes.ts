// What tests that run a real server of their own (Pebble, unbound, a Postline on a known port)
// share: a free loopback port, a child process stopped politely then firmly, and a child and
// its temp directory removed even when the test process exits without stopping them.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { closeServer } from './eventually.js';

/** A port nothing listens on now (another process may take it before the caller binds it). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await closeServer(server);
  return port;
}

/** SIGTERM, then SIGKILL after 3 s; resolves once the child has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Kills the child and removes `dir` if the test process exits first (a failed before(),
 * --test-force-exit); returns what stops the child and removes the directory in the ordinary way.
 */
export function removedAtExit(child: ChildProcess, dir: string): { stop(): Promise<void>; forget(): void } {
  const cleanUp = () => {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', cleanUp);
  const forget = () => process.off('exit', cleanUp);
  return {
    forget,
    async stop() {
      forget();
      await stopChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
