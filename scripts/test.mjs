#!/usr/bin/env node
// `npm test`: the whole suite on the embedded PostgreSQL that Postline starts itself, then,
// when TEST_DATABASE_URL is set, the same suite again on that server.
// Arguments narrow the files: `npm test -- emails` runs test files whose path contains "emails".
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return findTests(full);
    return name.endsWith('.test.ts') ? [full] : [];
  });
}

const filters = process.argv.slice(2);
const files = findTests('test')
  .filter((f) => filters.length === 0 || filters.some((p) => f.includes(p)))
  .sort();
if (files.length === 0) {
  console.error('no test files match');
  process.exit(1);
}

const modes = ['embedded', ...(process.env.TEST_DATABASE_URL ? ['external'] : [])];
let failed = false;
for (const mode of modes) {
  console.log(`\n# database: ${mode === 'embedded' ? 'embedded PostgreSQL' : 'TEST_DATABASE_URL'} (${files.length} files)`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', ...files], {
    stdio: 'inherit',
    env: { ...process.env, POSTLINE_TEST_DB: mode },
  });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
