// Chooses the database: DATABASE_URL when set, otherwise the embedded server; then migrates.
import type { Config } from '../config.js';
import { openDb, type Db } from './database.js';
import { startEmbedded } from './embedded.js';
import { migrate } from './migrate.js';

export interface Database {
  db: Db;
  close(): Promise<void>;
}

export async function connectDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  log: (msg: string) => void,
  options: { poolSize?: number; migrate?: boolean } = {},
): Promise<Database> {
  const embedded = config.databaseUrl ? undefined : await startEmbedded(config.dataDir, log);
  const db = openDb(config.databaseUrl ?? embedded!.url, { max: options.poolSize });
  try {
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
    async close() {
      await db.close();
      await embedded?.release();
    },
  };
}
