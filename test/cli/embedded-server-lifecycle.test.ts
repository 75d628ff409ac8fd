// The embedded PostgreSQL server's life across real `postline start` processes: one server per
// data directory however many Postlines use it, adopted after a kill -9, stopped with the
// last Postline, and a stale postmaster.pid never mistaken for a live server.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Resend } from 'resend';
import { eventually } from '../support/eventually.js';
import { testDbMode } from '../support/postline.js';
import { PostlineProcess, baseEnv, newApiKey, postmasterPid, postmastersOf, tempDataDir, cleanupsAfterSuite } from './postline-process.js';

const noServerLeft = async (dataDir: string) => (await postmastersOf(dataDir)).length === 0;

describe('embedded PostgreSQL across Postline processes', { skip: testDbMode() === 'external' && 'embedded server only' }, () => {
  const cleanups = cleanupsAfterSuite();

  async function setup() {
    const dataDir = await tempDataDir();
    const apiKey = newApiKey();
    const env = baseEnv({ POSTLINE_DATA_DIR: dataDir, POSTLINE_BOOTSTRAP_API_KEY: apiKey });
    const started: PostlineProcess[] = [];
    cleanups.push(async () => {
      for (const p of started) p.child.kill('SIGKILL');
      for (const pid of await postmastersOf(dataDir)) process.kill(pid, 'SIGKILL');
      await fs.rm(dataDir, { recursive: true, force: true });
    });
    const start = async (options?: Parameters<typeof PostlineProcess.start>[1]) => {
      const p = await PostlineProcess.start(env, options);
      started.push(p);
      return p;
    };
    const sdk = (p: PostlineProcess) => new Resend(apiKey, { baseUrl: p.url });
    return { dataDir, start, sdk };
  }

  it('after a kill -9 of Postline, the next start adopts the server left running and the data is there', async () => {
    const { dataDir, start, sdk } = await setup();
    const first = await start();
    const created = await sdk(first).apiKeys.create({ name: 'made before the crash' });
    assert.equal(created.error, null);
    const server = await postmasterPid(dataDir);
    assert.ok(server);

    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');
    assert.deepEqual(await postmastersOf(dataDir), [server], 'the server outlives a crashed Postline');

    const second = await start();
    const keys = await sdk(second).apiKeys.list();
    assert.ok(keys.data?.data.some((k) => k.name === 'made before the crash'));
    assert.deepEqual(await postmastersOf(dataDir), [server], 'the same server was reused, no second one started');
    assert.ok(second.lines.some((l) => l.includes('reusing embedded PostgreSQL')));

    // The crashed process's registration does not keep the server alive once the last live one stops.
    assert.equal((await second.stop('SIGTERM')).code, 0);
    await eventually(() => noServerLeft(dataDir), 10_000, 'the server to stop');
    assert.equal(await postmasterPid(dataDir), undefined);
  });

  it('two Postlines on one data directory share one server; it stops only with the last of them', async () => {
    const { dataDir, start, sdk } = await setup();
    // Started together on an empty directory: they also race for initdb.
    const [a, b] = await Promise.all([start({ detached: true }), start()]);
    // The race's loser may have launched a server of its own, which finds the data directory
    // locked and exits: one server remains, and within a bounded wait.
    await eventually(async () => (await postmastersOf(dataDir)).length === 1, 5_000, 'one server on the data directory');

    const fromA = await sdk(a).apiKeys.create({ name: 'via a' });
    assert.equal(fromA.error, null);
    const seenByB = await sdk(b).apiKeys.list();
    assert.ok(
      seenByB.data?.data.some((k) => k.name === 'via a'),
      'both serve the same database',
    );

    // A Ctrl-C in a's terminal (SIGINT to its whole process group): a stops cleanly, the
    // server, in a session of its own, is not hit and keeps serving b.
    assert.equal((await a.stop('SIGINT', { group: true })).code, 0);
    assert.equal((await postmastersOf(dataDir)).length, 1);
    const fromB = await sdk(b).apiKeys.create({ name: 'via b after a stopped' });
    assert.equal(fromB.error, null);

    assert.equal((await b.stop('SIGTERM')).code, 0);
    assert.ok(b.lines.some((l) => l.includes('stopping embedded PostgreSQL')));
    assert.ok(await noServerLeft(dataDir), 'the last Postline stopped the server before exiting');
  });

  it('starts after the server itself was killed, and over a postmaster.pid naming a recycled pid', async () => {
    const { dataDir, start, sdk } = await setup();
    const first = await start();
    const server = (await postmasterPid(dataDir))!;
    // A power cut, in effect: Postline and the server die at once, leaving postmaster.pid behind.
    first.child.kill('SIGKILL');
    process.kill(server, 'SIGKILL');
    await first.exited;
    await eventually(() => noServerLeft(dataDir), 10_000, 'the killed server to go');

    const second = await start();
    assert.equal((await sdk(second).apiKeys.list()).error, null);
    assert.equal((await second.stop()).code, 0);
    assert.ok(await noServerLeft(dataDir));

    // After a reboot the pid in a leftover postmaster.pid may belong to any live process:
    // here this test's own, which is no postmaster.
    await fs.writeFile(path.join(dataDir, 'pg', 'postmaster.pid'), `${process.pid}\n${path.join(dataDir, 'pg')}\n0\n1\n\n127.0.0.1\n0 0\nready\n`);
    const third = await start();
    assert.equal((await sdk(third).apiKeys.list()).error, null);
    assert.notEqual(await postmasterPid(dataDir), process.pid);
    assert.equal((await third.stop()).code, 0);
    assert.ok(await noServerLeft(dataDir));
  });
});
