// A fresh, empty database for tests of src/db itself: an embedded server in a temporary data
// directory, or a new database on TEST_DATABASE_URL when POSTLINE_TEST_DB=external.
import fs from 'node:fs/promises';
import { startEmbedded } from '../../src/db/embedded.js';
import { externalDatabase, tempDataDir } from '../cli/postline-process.js';
import { testDbMode } from '../support/postline.js';

export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (testDbMode() === 'external') return externalDatabase();
  const dataDir = await tempDataDir();
  const server = await startEmbedded(dataDir, () => {});
  return {
    url: server.url,
    async drop() {
      await server.release();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
