// What `npm install && npm start` runs: the tsc build in dist/ (made by `prepare`), started as
// `node dist/src/main.js start`. It must find its SQL migrations (tsc copies no .sql files),
// serve, and stop cleanly, embedded server included, on the Ctrl-C of a terminal.
// The build goes to a scratch package (src/ and node_modules/ linked), never to the repo's dist/.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Resend } from 'resend';
import { testDbMode } from '../support/postline.js';
import { PostlineProcess, baseEnv, newApiKey, postmastersOf, repoRoot, tempDataDir, cleanupsAfterSuite } from './postline-process.js';

describe('the compiled build (npm start)', { skip: testDbMode() === 'external' && 'the build does not depend on the database' }, () => {
  const cleanups = cleanupsAfterSuite();

  it('starts from dist/, applies the migrations from src/db/migrations, and stops cleanly on SIGINT', async () => {
    const pkg = await fs.mkdtemp(path.join(os.tmpdir(), 'postline-build-'));
    cleanups.push(() => fs.rm(pkg, { recursive: true, force: true }));
    await fs.copyFile(path.join(repoRoot, 'package.json'), path.join(pkg, 'package.json'));
    await fs.symlink(path.join(repoRoot, 'src'), path.join(pkg, 'src'));
    await fs.symlink(path.join(repoRoot, 'node_modules'), path.join(pkg, 'node_modules'));
    const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    // The emit of `npm run build`; type errors are `npm run typecheck`'s business, not this test's.
    const outDir = path.join(pkg, 'dist');
    await promisify(execFile)(process.execPath, [tsc, '-p', path.join(repoRoot, 'tsconfig.json'), '--outDir', outDir, '--noCheck']);

    const dataDir = await tempDataDir();
    cleanups.push(async () => {
      for (const pid of await postmastersOf(dataDir)) process.kill(pid, 'SIGKILL');
      await fs.rm(dataDir, { recursive: true, force: true });
    });
    const apiKey = newApiKey();
    const postline = await PostlineProcess.start(baseEnv({ POSTLINE_DATA_DIR: dataDir, POSTLINE_BOOTSTRAP_API_KEY: apiKey }), {
      command: [process.execPath, path.join(pkg, 'dist', 'src', 'main.js'), 'start'],
      detached: true,
    });
    cleanups.push(async () => postline.child.kill('SIGKILL'));

    const migrations = (await fs.readdir(path.join(repoRoot, 'src', 'db', 'migrations'))).filter((f) => f.endsWith('.sql')).sort();
    assert.ok(
      postline.lines.some((l) => l.includes(`applied migrations: ${migrations.join(', ')}`)),
      postline.lines.join('\n'),
    );
    const keys = await new Resend(apiKey, { baseUrl: postline.url }).apiKeys.list();
    assert.equal(keys.error, null);

    assert.equal((await postline.stop('SIGINT', { group: true })).code, 0);
    assert.deepEqual(await postmastersOf(dataDir), [], 'the embedded server stopped with it');
  });
});
