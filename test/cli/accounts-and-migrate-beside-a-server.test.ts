// `postline migrate` and `postline accounts create NAME` work against the same database as a
// running `postline start` (the embedded server of its data directory, or DATABASE_URL),
// without disturbing it; the printed key works on the running server at once.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { testDbMode } from '../support/postline.js';
import { PostlineProcess, baseEnv, externalDatabase, newApiKey, postmasterPid, postmastersOf, runCli, tempDataDir } from './postline-process.js';

const external = testDbMode() === 'external';

describe(`postline CLI beside a running server (${external ? 'DATABASE_URL' : 'embedded'})`, () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: PostlineProcess;
  let dropDatabase: (() => Promise<void>) | undefined;
  const bootstrapKey = newApiKey();

  before(async () => {
    dataDir = await tempDataDir();
    const database = external ? await externalDatabase() : undefined;
    dropDatabase = database?.drop;
    env = baseEnv({
      POSTLINE_DATA_DIR: dataDir,
      POSTLINE_BOOTSTRAP_API_KEY: bootstrapKey,
      ...(database ? { DATABASE_URL: database.url } : {}),
    });
    server = await PostlineProcess.start(env);
  });
  after(async () => {
    await server?.stop().catch(() => {});
    for (const pid of await postmastersOf(dataDir)) process.kill(pid, 'SIGKILL');
    await fs.rm(dataDir, { recursive: true, force: true });
    await dropDatabase?.();
  });

  it('migrate finds the schema up to date and leaves the server running', async () => {
    const serverPid = await postmasterPid(dataDir);
    const result = await runCli(['migrate'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /migrations are up to date/);
    assert.doesNotMatch(result.stdout, /applied migrations/, 'nothing left to apply after start');
    assert.equal(await postmasterPid(dataDir), serverPid);
    const sdk = new Resend(bootstrapKey, { baseUrl: server.url });
    assert.equal((await sdk.apiKeys.list()).error, null);
  });

  it('accounts create prints an account id and a full-access key that the running server accepts', async () => {
    const result = await runCli(['accounts', 'create', 'Acme', 'Corp'], env);
    assert.equal(result.code, 0, result.stderr);
    const match = /^account ([0-9a-f-]{36})\napi key (re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24})\n$/.exec(result.stdout);
    assert.ok(match, `unexpected output: ${JSON.stringify(result.stdout)}`);
    const token = match[2]!;

    const acme = new Resend(token, { baseUrl: server.url });
    const keys = await acme.apiKeys.list();
    assert.equal(keys.error, null);
    assert.deepEqual(
      keys.data!.data.map((k) => k.name),
      ['Default'],
      'a new account sees only its own key',
    );
    const created = await acme.apiKeys.create({ name: 'second key', permission: 'full_access' });
    assert.equal(created.error, null);

    const bootstrap = await new Resend(bootstrapKey, { baseUrl: server.url }).apiKeys.list();
    assert.ok(!bootstrap.data!.data.some((k) => k.name === 'second key'), 'accounts do not see each other');
  });

  it('accounts create without a name prints usage and fails', async () => {
    const result = await runCli(['accounts', 'create'], env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /usage:/);
  });

  if (external) {
    it('with DATABASE_URL no embedded server is made', async () => {
      await assert.rejects(fs.stat(path.join(dataDir, 'pg')));
      assert.deepEqual(await postmastersOf(dataDir), []);
    });
  } else {
    it('with no server running, accounts create starts the embedded server and stops it again', async () => {
      assert.equal((await server.stop()).code, 0);
      assert.deepEqual(await postmastersOf(dataDir), []);
      const result = await runCli(['accounts', 'create', 'Offline'], env);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^api key re_/m);
      assert.deepEqual(await postmastersOf(dataDir), [], 'the one-shot command stopped the server it started');
    });
  }
});
