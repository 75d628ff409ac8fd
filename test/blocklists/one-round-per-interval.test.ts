// Two nodes on one database ask the blocklists one round per POSTLINE_DNSBL_INTERVAL between
// them (src/blocklists/watch.ts: a row claim), not one each: counted as questions at the DNS
// server standing in for the list.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startPostline, type Postline } from '../../src/server.js';
import { aQueries, eventually, OUTBOUND_IP, rounds, startTestPostline, type TestPostline } from './support.js';

const INTERVAL_MS = 2_000;
const NAME = '2.0.0.127.bl.test';

describe('blocklists: one round per interval for the cluster', () => {
  let t: TestPostline;
  let second: Postline | undefined;
  before(async () => {
    t = await startTestPostline({
      env: { POSTLINE_DNSBLS: 'bl.test', POSTLINE_DOMAIN_BLOCKLISTS: '', POSTLINE_DNSBL_INTERVAL: `${INTERVAL_MS}ms`, POSTLINE_OUTBOUND_IPS: OUTBOUND_IP },
    });
    t.dns.set(NAME, { A: ['127.0.0.2'] });
    // A second node with the worker role on the same database (by URL, as another machine would be).
    const databaseUrl = (t.postline.db.pool as any).options.connectionString as string;
    second = await startPostline({ ...t.postline.config, databaseUrl, port: 0 }, { roles: ['worker'], logger: t.postline.logger });
  });
  after(async () => {
    await second?.stop();
    await t?.stop();
  });

  it('makes one query per target and zone per interval, whichever node asks', async () => {
    await eventually(async () => (await t.sql('SELECT listed FROM blocklist_checks WHERE target = $1', [OUTBOUND_IP]))[0]?.listed, 20_000, 'a first round');
    const startedAt = Date.now();
    const rounds0 = await rounds(t);
    const queries0 = aQueries(t, NAME);
    // Both nodes look whether a round is due four times per interval: over four intervals,
    // uncoordinated they would ask about eight times, each node on its own.
    await new Promise((resolve) => setTimeout(resolve, 4 * INTERVAL_MS));
    const elapsed = Date.now() - startedAt;
    const done = (await rounds(t)) - rounds0;
    const asked = aQueries(t, NAME) - queries0;
    assert.ok(done >= 2, `rounds went on: ${done}`);
    assert.ok(done <= Math.floor(elapsed / INTERVAL_MS) + 1, `at most one round per interval: ${done} in ${elapsed} ms`);
    // A round in flight at either end of the window may fall on one side of it only.
    assert.ok(Math.abs(asked - done) <= 1, `one question per round: ${asked} questions, ${done} rounds`);
    const nodes = await t.sql('SELECT count(*)::int AS n FROM nodes');
    assert.ok(nodes[0].n >= 2, 'two nodes were running');
  });
});
