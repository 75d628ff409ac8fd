// The rules of a node's revocable cache against a real change feed (db/change-feed.ts) on a real
// PostgreSQL: an entry outlives its short lifetime only while the feed vouches for it; a notice
// of its key drops it; an entry whose read a notice raced, or a row's absence, lives the short
// lifetime only; a feed that lost its connection vouches for nothing read before it listens again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ChangeFeed } from '../../src/db/change-feed.js';
import { RevocableCache } from '../../src/cluster/revocable-cache.js';
import { freshDatabase } from '../db/fresh-database.js';
import { eventually } from '../support/eventually.js';

const TTL_MS = 50;
const TOPIC = 'test_row';

describe('a revocable cache on a change feed', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let sql: pg.Client;
  let feed: ChangeFeed;
  let cache: RevocableCache<string>;
  const trust: boolean[] = [];
  before(async () => {
    database = await freshDatabase();
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    feed = new ChangeFeed(database.url, { onTrustChange: (trusted) => trust.push(trusted) });
    await feed.start();
    cache = new RevocableCache<string>(feed, TOPIC, { ttlMs: TTL_MS, maxEntries: 100 });
  });
  after(async () => {
    await feed.stop();
    await sql.end();
    await database.drop();
  });

  const notify = (key: string) => sql.query(`SELECT pg_notify('postline_changes', $1)`, [`${TOPIC}:${key}`]);
  const trusted = () => eventually(async () => feed.trustedSince() !== undefined, 10_000, 'the feed trusted');
  /** Past the short lifetime of an entry read now (a bounded wait for the clock, not for the system under test). */
  const pastTtl = () => new Promise((r) => setTimeout(r, TTL_MS * 2));

  it('keeps an entry past its lifetime while the feed vouches, and drops it on a notice of its key', async () => {
    await trusted();
    cache.set('a', 'A', cache.begin());
    await pastTtl();
    assert.equal(await cache.get('a'), 'A');
    await notify('a');
    await eventually(async () => (await cache.get('a')) === undefined, 5_000, 'the notice dropping the entry');
  });

  it('keeps a row’s absence, or a read a notice raced, for the short lifetime only', async () => {
    await trusted();
    cache.set('missing', 'none', cache.begin(), { absent: true });
    const raced = cache.begin();
    await notify('another-row');
    await eventually(
      async () => {
        cache.set('probe', 'P', cache.begin());
        await notify('probe');
        return (await cache.get('probe')) === undefined;
      },
      5_000,
      'the notices heard',
    );
    cache.set('raced', 'R', raced);
    cache.set('calm', 'C', cache.begin()); // read after the notices: vouched for
    await pastTtl();
    assert.equal(await cache.get('missing'), undefined);
    assert.equal(await cache.get('raced'), undefined);
    assert.equal(await cache.get('calm'), 'C');
  });

  it('vouches for nothing read before a lost connection, and again for what is read once it listens anew', async () => {
    await trusted();
    cache.set('old', 'O', cache.begin());
    await sql.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'postline changes' AND datname = current_database()`);
    await eventually(async () => trust.at(-1) === false, 5_000, 'the feed distrusted');
    await trusted();
    cache.set('new', 'N', cache.begin());
    await pastTtl();
    assert.equal(await cache.get('old'), undefined);
    assert.equal(await cache.get('new'), 'N');
  });
});
