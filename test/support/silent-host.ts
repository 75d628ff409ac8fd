// A TCP server that takes connections and never says a word: an MX host (or anything else)
// on which a client's attempt hangs until its own timeout, for tests of work in flight.
import net, { type AddressInfo } from 'node:net';
import { closeServer } from './eventually.js';

interface SilentHost {
  port: number;
  /** Connections taken so far. */
  held: net.Socket[];
  stop(): Promise<void>;
}

export async function startSilentHost(): Promise<SilentHost> {
  const held: net.Socket[] = [];
  const server = net.createServer((socket) => held.push(socket.on('error', () => {})));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    held,
    async stop() {
      for (const socket of held) socket.destroy();
      await closeServer(server);
    },
  };
}
