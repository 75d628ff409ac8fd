// Two api nodes on one database, as an operator scales out: a key deleted through node A is
// refused by node B as soon as PostgreSQL's notice reaches B (db/change-feed.ts: LISTEN/NOTIFY),
// though B authenticated it a moment before and would otherwise keep it 2 s. The notice is sent
// at commit but reaches B asynchronously (milliseconds; tens of them on a starved machine), so
// the proof is that B refuses the key while its cached entry was still fresh. With the channel
// cut, B falls back to the 2 s lifetime, and hears notices again once it listens anew.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { loadConfig } from '../../src/config.js';
import { startPostline, type Postline } from '../../src/server.js';
import { eventually } from '../support/eventually.js';
import { rawRequest, startTestPostline, TEST_SECRET_KEY, type TestPostline } from '../support/postline.js';

/** How long node B keeps a key when no notice says otherwise (accounts/api-keys.ts). */
const CACHE_MS = 2_000;

describe('an API key deleted through one node', () => {
  let a: TestPostline;
  let b: Postline;
  before(async () => {
    a = await startTestPostline({ roles: ['api'] });
    b = await startPostline(
      loadConfig({
        DATABASE_URL: a.postline.databaseUrl,
        POSTLINE_SECRET_KEY: TEST_SECRET_KEY,
        PORT: '0',
        HOST: '127.0.0.1',
        POSTLINE_SMTP_PORTS: '',
        POSTLINE_SMTPS_PORTS: '',
        LOG_LEVEL: 'warn',
        POSTLINE_RATE_LIMIT: '1000',
      }),
      { roles: ['api'] },
    );
  });
  after(async () => {
    await b.stop();
    await a.stop();
  });

  /** A new key, used once through node B so that B has it cached; until `freshUntil` only a notice can make B forget it. */
  async function keyCachedByB(): Promise<{ id: string; onB: Resend; freshUntil: number }> {
    const created = await a.resend.apiKeys.create({ name: 'revocable' });
    assert.equal(created.error, null);
    const onB = new Resend(created.data!.token, { baseUrl: b.url });
    const readFrom = performance.now();
    assert.equal((await onB.domains.list()).error, null);
    return { id: created.data!.id, onB, freshUntil: readFrom + CACHE_MS };
  }

  /** Deletes the key through A, and checks B refuses it before its cached entry could have expired. */
  async function deleteThroughARefusedByB(key: { id: string; onB: Resend; freshUntil: number }): Promise<void> {
    assert.equal((await a.resend.apiKeys.remove(key.id)).error, null);
    const refused = await eventually(
      async () => {
        const answer = await key.onB.domains.list();
        return answer.error?.name === 'invalid_api_key' && { error: answer.error, at: performance.now() };
      },
      5_000,
      'B refusing the deleted key',
    );
    assert.deepEqual(refused.error, { statusCode: 403, name: 'invalid_api_key', message: 'API key is invalid.' });
    assert.ok(refused.at < key.freshUntil, `refused ${Math.round(refused.at - key.freshUntil)} ms after B's entry expired by itself`);
  }

  /**
   * Both nodes listen (their change feeds have pinged since their LISTEN), on connections other
   * than `gone`; their backends' pids. Only this test's database: a shared server has others'.
   */
  const bothListening = (gone: number[] = []) =>
    eventually(
      async () => {
        const rows = await a.sql(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'postline changes'
             AND query LIKE 'SELECT pg_notify%' AND NOT pid = ANY($1::int[])`,
          [gone],
        );
        return rows.length === 2 && rows.map((r) => r.pid as number);
      },
      15_000,
      'both change feeds listening',
    );

  it('is refused by the other node on the next request', async () => {
    await bothListening();
    await deleteThroughARefusedByB(await keyCachedByB());
  });

  it('is refused within the cache lifetime while the channel is cut, and at once again after it listens anew', async () => {
    const listeners = await bothListening();
    const { id, onB } = await keyCachedByB();
    await a.sql('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [listeners]);
    assert.equal((await a.resend.apiKeys.remove(id)).error, null);
    // B may or may not have heard (it may have listened again already): either way, refused within ~2 s.
    await eventually(async () => (await onB.domains.list()).error?.name === 'invalid_api_key', 5_000, 'B refusing the deleted key');

    await bothListening(listeners);
    await deleteThroughARefusedByB(await keyCachedByB());
  });

  it('and an OAuth grant revoked through one node: refused by the other on the next request', async () => {
    await bothListening();
    const issued = await rawRequest(a, 'POST', '/oauth/grants', { body: { client: { name: 'Revocable app' }, scopes: ['full_access'] } });
    assert.equal(issued.status, 201);
    const onB = new Resend(issued.body.token, { baseUrl: b.url });
    const readFrom = performance.now();
    assert.equal((await onB.domains.list()).error, null);
    assert.equal((await a.resend.oauthGrants.revoke(issued.body.id)).error, null);
    const refusedAt = await eventually(
      async () => (await onB.domains.list()).error?.name === 'invalid_api_key' && performance.now(),
      5_000,
      'B refusing the revoked grant',
    );
    assert.ok(refusedAt < readFrom + CACHE_MS, `refused ${Math.round(refusedAt - readFrom - CACHE_MS)} ms after B's entry expired by itself`);
  });
});
