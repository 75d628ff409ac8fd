// Migrations: applied once each, in order, even when many nodes start together on an empty
// database (advisory lock), and a no-op on every later start.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDb, type Db } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { repoRoot } from '../cli/postline-process.js';
import { freshDatabase } from './fresh-database.js';

describe('migrations', () => {
  let database: { url: string; drop(): Promise<void> };
  const pools: Db[] = [];
  before(async () => {
    database = await freshDatabase();
  });
  after(async () => {
    for (const db of pools) await db.close();
    await database.drop();
  });

  it('run once under concurrency and are idempotent afterwards', async () => {
    const files = (await fs.readdir(path.join(repoRoot, 'src', 'db', 'migrations'))).filter((f) => f.endsWith('.sql')).sort();
    assert.ok(files.length >= 1);
    for (let i = 0; i < 6; i++) pools.push(openDb(database.url, { max: 2 }));

    // Six nodes starting at once on an empty database.
    const results = await Promise.all(pools.map((db) => migrate(db)));
    const appliers = results.filter((applied) => applied.length > 0);
    assert.equal(appliers.length, 1, 'exactly one node applied the migrations');
    assert.deepEqual(appliers[0], files, 'in name order');

    const rows = await pools[0]!.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    assert.deepEqual(
      rows.map((r) => r.name),
      files,
    );
    assert.deepEqual(await migrate(pools[0]!), [], 'a later start applies nothing');
    // The schema is really there, and the migration lock was let go.
    assert.ok(await pools[1]!.one<{ t: string | null }>(`SELECT to_regclass('public.request_logs') AS t`).then((r) => r?.t));
    const held = await pools[2]!.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks
       WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    assert.equal(held!.n, 0);
  });
});
