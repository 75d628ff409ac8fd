// Without POSTLINE_SECRET_KEY: on the embedded database (a laptop), Postline makes a key in its
// data directory at first start, readable by its owner only, and keeps using it; with
// DATABASE_URL (nodes sharing a database need one key between them), it refuses to start,
// naming the variable.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/config.js';
import { startTestPostline, testDbMode } from '../support/postline.js';

describe('the secret key when none is configured', () => {
  if (testDbMode() === 'embedded') {
    it('is made in the data directory at first start (mode 0600) and kept across restarts', async () => {
      const t = await startTestPostline({ env: { POSTLINE_SECRET_KEY: '' } });
      try {
        const file = path.join(t.postline.config.dataDir, 'secret.key');
        const stat = await fs.stat(file);
        assert.equal(stat.mode & 0o777, 0o600);
        const key = await fs.readFile(file, 'utf8');
        assert.equal(Buffer.from(key.trim(), 'base64').length, 32);
        const [{ key_id: id }] = await t.sql('SELECT key_id FROM secret_keys WHERE retired_at IS NULL');
        await t.restart();
        assert.equal(await fs.readFile(file, 'utf8'), key, 'the same key');
        assert.deepEqual(await t.sql('SELECT key_id FROM secret_keys WHERE retired_at IS NULL'), [{ key_id: id }]);
        const { error } = await t.resend.domains.create({ name: 'after-restart.test' });
        assert.equal(error, null);
      } finally {
        await t.stop();
      }
    });
  } else {
    it('is required with DATABASE_URL: the start is refused, naming the variable', async () => {
      await assert.rejects(
        startTestPostline({ env: { POSTLINE_SECRET_KEY: '' } }),
        (err: Error) => err instanceof ConfigError && /^POSTLINE_SECRET_KEY \(or POSTLINE_SECRET_KEY_FILE\) must be set with DATABASE_URL/.test(err.message),
      );
    });
  }
});
