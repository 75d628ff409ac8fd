// Chooses the database: DATABASE_URL when set, otherwise the embedded server; then migrates.
// A DATABASE_URL server that is not up yet (containers starting together, a failover) is
// waited for, up to START_WAIT_MS; a wrong password or database name fails at once.
import type { Config } from '../config.js';
import { NETWORK_ERRORS, openDb, type Db } from './database.js';
import { startEmbedded } from './embedded.js';
import { migrate } from './migrate.js';

interface Database {
  db: Db;
  /** The connection string in use: DATABASE_URL or the embedded server's. */
  url: string;
  close(): Promise<void>;
}

const START_WAIT_MS = 30_000;
/** Errors that mean "not reachable yet", as opposed to "reachable but refusing us". */
const TRANSIENT = new Set([...NETWORK_ERRORS, '57P03']);

async function waitUntilReachable(db: Db, log: (msg: string) => void, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    try {
      await db.query('SELECT 1');
      return;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (!code || !TRANSIENT.has(code) || Date.now() + delay > deadline) throw err;
      log(`waiting for the database (${code})`);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

export async function connectDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  log: (msg: string) => void,
  options: { poolSize?: number; migrate?: boolean; startWaitMs?: number } = {},
): Promise<Database> {
  const embedded = config.databaseUrl ? undefined : await startEmbedded(config.dataDir, log);
  const url = config.databaseUrl ?? embedded!.url;
  const db = openDb(url, { max: options.poolSize });
  try {
    await waitUntilReachable(db, log, options.startWaitMs ?? START_WAIT_MS);
    if (options.migrate !== false) {
      const applied = await migrate(db);
      if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
    }
  } catch (err) {
    await db.close();
    await embedded?.release();
    throw err;
  }
  return {
    db,
    url,
    async close() {
      await db.close();
      await embedded?.release();
    },
  };
}
