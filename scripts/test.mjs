#!/usr/bin/env node
// `npm test`: the whole suite on the embedded PostgreSQL that Postline starts itself, then,
// when TEST_DATABASE_URL is set, the same suite again on that server.
// Arguments narrow the files: `npm test -- emails` runs test files whose path contains "emails".
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// Every test fails after this long instead of holding the run. node applies it to each test
// file as a whole too, so it is sized for the slowest file: under a 2-core machine's heaviest
// load seen (four suites at once), inbound/large-messages took 128 s and
// broadcasts/fan-out-survives-restart over 180 s (README.md's Tests section).
// A test may ask for more with its own `timeout` option.
const TEST_TIMEOUT_MS = 600_000;
// Two test files at a time by default (POSTLINE_TEST_CONCURRENCY changes it): each starts a whole
// Postline, which waits on its database and sockets far more than it computes, so two share a
// 2-core machine well (the suite in about 60 % of the time), and every wait in a test is
// bounded and relative, so the extra load may slow a file but never fail it.
const SLOWEST_SHOWN = 15;
const CONCURRENCY = Number(process.env.POSTLINE_TEST_CONCURRENCY ?? 2);
if (!Number.isInteger(CONCURRENCY) || CONCURRENCY < 1) {
  console.error('POSTLINE_TEST_CONCURRENCY must be a whole number of 1 or more');
  process.exit(1);
}

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

// The tests' own certificate authority (test/support/test-ca.ts), trusted as an operator's
// NODE_EXTRA_CA_CERTS adds a private CA: HTTPS policy hosts and MX hosts of the tests present
// certificates it issued.
const TEST_CA = path.resolve('test/fixtures/test-ca/ca.pem');

/**
 * A migrated database for this pass's test files to copy (test/support/prepare-database.ts):
 * the environment naming it, which startTestPostline reads.
 */
function prepareDatabase(mode) {
  const prepared = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/prepare-database.ts', 'prepare', mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (prepared.status !== 0) {
    console.error(`preparing the ${mode} database failed`);
    process.exit(1);
  }
  return JSON.parse(prepared.stdout.trim().split('\n').pop());
}

function dropPrepared(prepared) {
  if (prepared.POSTLINE_TEST_TEMPLATE_DIR) rmSync(prepared.POSTLINE_TEST_TEMPLATE_DIR, { recursive: true, force: true });
  if (prepared.POSTLINE_TEST_TEMPLATE_DB) {
    spawnSync(process.execPath, ['--import', 'tsx', 'test/support/prepare-database.ts', 'drop', 'external', prepared.POSTLINE_TEST_TEMPLATE_DB], {
      stdio: 'inherit',
    });
  }
}

const modes = ['embedded', ...(process.env.TEST_DATABASE_URL ? ['external'] : [])];
const summaryDir = mkdtempSync(path.join(os.tmpdir(), 'postline-test-summary-'));
let failed = false;
const notes = [];
const timings = [];
for (const mode of modes) {
  const startedAt = Date.now();
  const label = mode === 'embedded' ? 'embedded PostgreSQL' : 'TEST_DATABASE_URL';
  console.log(`\n# database: ${label} (${files.length} files)`);
  const summaryFile = path.join(summaryDir, `${mode}.jsonl`);
  const prepared = prepareDatabase(mode);
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      `--test-timeout=${TEST_TIMEOUT_MS}`,
      `--test-concurrency=${CONCURRENCY}`,
      // A file whose tests are over ends, even if something it started still holds its process
      // open (a server left by a failed start): its failures are reported, never waited on.
      '--test-force-exit',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=./scripts/test-summary-reporter.mjs',
      `--test-reporter-destination=${summaryFile}`,
      ...files,
    ],
    { stdio: 'inherit', env: { ...process.env, ...prepared, POSTLINE_TEST_DB: mode, NODE_EXTRA_CA_CERTS: TEST_CA } },
  );
  dropPrepared(prepared);
  if (result.status !== 0) failed = true;
  const lines = readFileSync(summaryFile, 'utf8').split('\n').filter(Boolean);
  const fileMs = new Map();
  for (const line of lines) {
    const note = JSON.parse(line);
    if (note.kind === 'top-level') fileMs.set(note.file, (fileMs.get(note.file) ?? 0) + note.ms);
    else notes.push({ ...note, label });
  }
  const slowest = [...fileMs].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_SHOWN);
  timings.push({ label, wallMs: Date.now() - startedAt, slowest });
}
rmSync(summaryDir, { recursive: true, force: true });

// How long each pass took and its slowest files: what to look at when the run grows (CI must
// stay well inside its time limit).
for (const { label, wallMs, slowest } of timings) {
  console.log(`\n# ${label}: ${Math.round(wallMs / 1000)} s; slowest files:`);
  for (const [file, ms] of slowest) console.log(`- ${Math.round(ms / 1000)} s ${path.relative(process.cwd(), file)}`);
}

// Skipped tests are listed last, each with its reason, so a skip never reads as a pass.
if (notes.length > 0) {
  console.log(`\n# ${notes.length} test(s) skipped or timed out:`);
  for (const n of notes) console.log(`- ${n.kind} [${n.label}] ${path.relative(process.cwd(), n.file ?? '?')}: ${n.name}: ${n.reason}`);
}
process.exit(failed ? 1 : 0);
