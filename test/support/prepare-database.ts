// A migrated database for the test files to copy (scripts/test.mjs runs this once per pass):
// migrating a fresh database takes a test file's Postline about a second, and the embedded
// server's initdb one or two more, paid again by every file. `prepare embedded|external`
// prints the environment that startTestPostline (postline.ts) copies from; `drop external NAME`
// removes a prepared database. The migrations themselves still run here, on every pass, and
// the tests of a first start (test/cli, test/db) start from nothing as before.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { connectDatabase } from '../../src/db/connect.js';

const [command, mode, name] = process.argv.slice(2);

async function admin<T>(run: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

if (command === 'prepare' && mode === 'embedded') {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'postline-test-template-'));
  const database = await connectDatabase({ dataDir, databaseUrl: undefined }, () => {});
  await database.close(); // the last user: the embedded server stops, its files are consistent
  console.log(JSON.stringify({ POSTLINE_TEST_TEMPLATE_DIR: dataDir }));
} else if (command === 'prepare' && mode === 'external') {
  const template = `postline_test_template_${crypto.randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${template}`));
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${template}`;
  const database = await connectDatabase({ databaseUrl: url.toString(), dataDir: '' }, () => {});
  await database.close();
  console.log(JSON.stringify({ POSTLINE_TEST_TEMPLATE_DB: template }));
} else if (command === 'drop' && mode === 'external' && name) {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
} else {
  console.error('usage: prepare-database.ts prepare embedded|external, or drop external NAME');
  process.exit(2);
}
