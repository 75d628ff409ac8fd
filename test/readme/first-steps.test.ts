// The README's first steps, pasted as a newcomer pastes them: `postline start` in sandbox mode
// with the bootstrap key the README gives, then its `send.mjs` run with plain `node`, twice.
// The script is taken from the README itself (only the port differs: the test's server listens
// on a free one), so the README cannot drift from what works.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { baseEnv, PostlineProcess, repoRoot, processStorage, cleanupsAfterSuite } from '../cli/postline-process.js';

const run = promisify(execFile);

async function readmeBlocks(): Promise<{ lang: string; code: string }[]> {
  const readme = await fs.readFile(path.join(repoRoot, 'README.md'), 'utf8');
  return [...readme.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, code: m[2]! }));
}

describe("the README's first steps", () => {
  const cleanups = cleanupsAfterSuite();

  it('send.mjs, run twice with node against `POSTLINE_SANDBOX=true npm start`, prints accepted and delivered', async () => {
    const blocks = await readmeBlocks();
    const start = blocks.find((b) => b.lang === 'bash' && b.code.includes('POSTLINE_SANDBOX=true POSTLINE_BOOTSTRAP_API_KEY='));
    assert.ok(start, 'the README starts Postline in sandbox mode with a bootstrap key');
    const key = /POSTLINE_BOOTSTRAP_API_KEY=(\S+)/.exec(start.code)![1]!;
    const script = blocks.find((b) => b.lang === 'js' && b.code.includes('resend.emails.send'));
    assert.ok(script, 'the README has a send.mjs');
    assert.ok(script.code.includes(key), 'send.mjs uses the key Postline was started with');

    const storage = await processStorage();
    cleanups.push(() => storage.remove());
    const postline = await PostlineProcess.start(baseEnv({ ...storage.env, POSTLINE_SANDBOX: 'true', POSTLINE_BOOTSTRAP_API_KEY: key }));
    cleanups.push(() => postline.stop('SIGKILL'));
    assert.ok(
      postline.lines.some((l) => l.includes('SANDBOX MODE')),
      'the start says it is a sandbox',
    );

    // A directory of its own, as the README says, with the SDK installed (the repository's copy).
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'postline-readme-'));
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    await fs.mkdir(path.join(dir, 'node_modules'));
    await fs.symlink(path.join(repoRoot, 'node_modules', 'resend'), path.join(dir, 'node_modules', 'resend'));
    await fs.writeFile(path.join(dir, 'send.mjs'), script.code.replace('http://localhost:3000', postline.url));

    for (const time of ['first', 'second']) {
      const { stdout } = await run(process.execPath, ['send.mjs'], { cwd: dir, timeout: 30_000 });
      assert.match(stdout, /^accepted: [0-9a-f-]{36}\nlast event: delivered\n$/, `${time} run: ${stdout}`);
    }
  });
});
