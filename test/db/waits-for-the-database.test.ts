// Start-up against a DATABASE_URL server that is not listening yet waits for it (containers
// starting together); a server that answers but refuses (unknown database) fails at once.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { connectDatabase } from '../../src/db/connect.js';
import { eventually } from '../support/eventually.js';
import { freshDatabase } from './fresh-database.js';
import { freePort } from '../support/processes.js';

/** A TCP forwarder to the real server, started late to play a database that is still booting. */
function proxy(listenPort: number, target: URL): net.Server {
  return net
    .createServer((client) => {
      const upstream = net.connect(Number(target.port || 5432), target.hostname);
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    })
    .listen(listenPort, '127.0.0.1');
}

describe('connecting to DATABASE_URL at start', () => {
  let database: { url: string; drop(): Promise<void> };
  let forwarder: net.Server | undefined;
  before(async () => {
    database = await freshDatabase();
  });
  after(async () => {
    forwarder?.close();
    await database.drop();
  });

  it('waits for a server that starts listening later, then migrates', async () => {
    const port = await freePort();
    const late = new URL(database.url);
    late.port = String(port);
    const messages: string[] = [];
    const connecting = connectDatabase({ databaseUrl: late.toString(), dataDir: '/nonexistent' }, (m) => messages.push(m));
    // The server appears only once the connection has been refused at least once.
    await eventually(async () => messages.some((m) => m.startsWith('waiting for the database (ECONNREFUSED)')), 10_000, 'a refused first try');
    forwarder = proxy(port, new URL(database.url));
    const connected = await connecting;
    try {
      assert.ok(
        messages.some((m) => m.startsWith('waiting for the database (ECONNREFUSED)')),
        messages.join('\n'),
      );
      assert.ok(messages.some((m) => m.startsWith('applied migrations:')));
      assert.ok(await connected.db.one<{ t: string | null }>(`SELECT to_regclass('public.accounts') AS t`).then((r) => r?.t));
    } finally {
      await connected.close();
    }
  });

  it('fails at once when the server refuses (unknown database), and when nothing comes up in time', async () => {
    const wrong = new URL(database.url);
    wrong.pathname = '/postline_no_such_database';
    const started = Date.now();
    await assert.rejects(
      connectDatabase({ databaseUrl: wrong.toString(), dataDir: '/nonexistent' }, () => {}),
      { code: '3D000' },
    );
    assert.ok(Date.now() - started < 2000);

    const nothing = new URL(database.url);
    nothing.port = String(await freePort());
    await assert.rejects(
      connectDatabase({ databaseUrl: nothing.toString(), dataDir: '/nonexistent' }, () => {}, { startWaitMs: 300 }),
      { code: 'ECONNREFUSED' },
    );
  });
});
