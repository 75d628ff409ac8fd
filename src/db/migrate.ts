// Applies src/db/migrations/*.sql in name order, each once, each in its own transaction,
// under an advisory lock so that many nodes starting together migrate once.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './database.js';

const MIGRATION_LOCK = 7_452_301; // arbitrary, fixed: pg_advisory_lock key for migrations

function migrationsDir(): string {
  // Works from src/db (tsx) and from dist/src/db (compiled by tsc, which copies no .sql):
  // the .sql files are always read from <package>/src/db/migrations.
  const here = path.dirname(fileURLToPath(import.meta.url));
  const compiled = path.basename(path.resolve(here, '..', '..')) === 'dist';
  return compiled ? path.resolve(here, '..', '..', '..', 'src', 'db', 'migrations') : path.join(here, 'migrations');
}

/** An applied migration (schema_migrations). */
interface MigrationRow {
  name: string;
}

/** to_regclass: the table's name, null when there is no such table. */
interface RegclassRow {
  name: string | null;
}

const migrationFiles = async () => (await fs.readdir(migrationsDir())).filter((f) => f.endsWith('.sql')).sort();

/** Migrations this code has that the database has not applied (another node's newer code may have applied more). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const files = await migrationFiles();
  const table = await db.one<RegclassRow>(`SELECT to_regclass('schema_migrations') AS name`);
  if (!table?.name) return files;
  const done = new Set((await db.query<MigrationRow>('SELECT name FROM schema_migrations')).map((r) => r.name));
  return files.filter((file) => !done.has(file));
}

export async function migrate(db: Db): Promise<string[]> {
  const files = await migrationFiles();
  const client = await db.pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await client.query<MigrationRow>('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await fs.readFile(path.join(migrationsDir(), file), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await client.query('COMMIT');
        applied.push(file);
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  return applied;
}
