// /healthz and /readyz as an orchestrator calls them: no API key, JSON answers; /readyz is
// 503 with the reason while the schema lacks a migration this code needs or the database does
// not answer, and ready again as soon as that is mended.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('health: /healthz and /readyz', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t?.stop());

  const probe = (path: string) => rawRequest(t, 'GET', path, { auth: null });

  it('/healthz answers 200 without an API key, to GET and HEAD', async () => {
    const res = await probe('/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
    assert.equal((await fetch(`${t.url}/healthz`, { method: 'HEAD' })).status, 200);
  });

  it('/readyz answers 200 with each check when the node can work', async () => {
    const res = await probe('/readyz');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      status: 'ready',
      checks: { database: 'ok', migrations: 'ok', roles: { api: 'running', smtp: 'running', worker: 'running' } },
    });
  });

  it('/readyz answers 503 naming a migration the database lacks, and 200 once it is there', async () => {
    const [latest] = await t.sql('DELETE FROM schema_migrations WHERE name = (SELECT max(name) FROM schema_migrations) RETURNING name, applied_at');
    try {
      const res = await probe('/readyz');
      assert.equal(res.status, 503);
      assert.equal(res.body.statusCode, 503);
      assert.equal(res.body.name, 'not_ready');
      assert.equal(res.body.message, `Not ready: migrations pending: ${latest.name}.`);
      assert.equal(res.body.checks.migrations, `pending: ${latest.name}`);
    } finally {
      await t.sql('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [latest.name, latest.applied_at]);
    }
    assert.equal((await probe('/readyz')).status, 200);
  });

  it('/readyz answers 503 within its deadline when the database does not answer', async () => {
    // A transaction holding the table the probe reads: its query waits, as on a stuck database.
    const client = await t.postline.db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('LOCK TABLE schema_migrations IN ACCESS EXCLUSIVE MODE');
      const started = Date.now();
      const res = await probe('/readyz');
      assert.equal(res.status, 503);
      assert.equal(res.body.checks.database, 'failing: no answer within 2000 ms');
      assert.match(res.body.message, /^Not ready: database failing: no answer within 2000 ms\.$/);
      assert.ok(Date.now() - started < 10_000);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    assert.equal((await probe('/readyz')).status, 200);
  });
});
