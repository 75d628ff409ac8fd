// The fan-out's guarantees where timing decides, driven step by step (no worker role runs, so
// nothing moves unless the test moves it): two workers holding the same broadcast (a lease
// that ran out under a slow node) never send a contact twice; a cancel stops the next chunk;
// and the delivery claim takes transactional mail before older broadcast mail.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { acceptChunk, BroadcastLost, fanOutChunk, prepareChunk, type FanOutDeps } from '../../src/broadcasts/fan-out-chunk.js';
import { claimBroadcast } from '../../src/broadcasts/fan-out.js';
import { claimDue } from '../../src/queue/claim.js';
import { DnsResolver } from '../../src/dns/resolver.js';
import { acceptDeps } from '../../src/emails/routes.js';
import { urlSigner } from '../../src/signed-urls/url-signing.js';
import { eventually } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { createContacts, createSegment, FROM, startBroadcastTest } from './support.js';

describe('broadcast fan-out: fence, cancel and queue priority', () => {
  let t: TestPostline;
  let segmentId: string;
  before(async () => {
    t = await startBroadcastTest({}, ['api']);
    segmentId = await createSegment(t);
    await createContacts(
      t,
      segmentId,
      Array.from({ length: 12 }, (_, i) => ({ email: `member${i}@example.org` })),
    );
  });
  after(() => t.stop());

  /** What one worker node holds: its own accept pipeline (group committer) and chunk size. */
  async function node(chunkSize = 5): Promise<FanOutDeps> {
    const { db, config, logger } = t.postline;
    const signer = await urlSigner(db, 'unsubscribe');
    return {
      db,
      accept: acceptDeps(db, config, new DnsResolver(config.dnsServers)),
      links: async () => ({ publicUrl: config.publicUrl, signer }),
      chunkSize,
      leaseMs: 60_000,
      logger,
    };
  }

  async function sendNow(subject: string): Promise<string> {
    const { data, error } = await t.resend.broadcasts.create({ segmentId, from: FROM, subject, text: 'x', send: true });
    assert.equal(error, null, JSON.stringify(error));
    return data!.id;
  }

  const emailsOf = async (id: string) =>
    (await t.sql('SELECT count(*)::int AS n, count(DISTINCT contact_id)::int AS contacts FROM emails WHERE broadcast_id = $1', [id]))[0];

  it('lets one of two workers holding the same broadcast commit a chunk; the other rolls back', async () => {
    const id = await sendNow('Race');
    const db = t.postline.db;
    const first = await claimBroadcast(db, 300); // a node whose lease will run out before it commits
    assert.equal(first?.id, id);
    assert.equal(await claimBroadcast(db, 60_000), undefined, 'leased: no one else takes it');
    const second = await eventually(() => claimBroadcast(db, 60_000), 10_000, 'the first lease to run out');
    assert.equal(second.id, id);

    const [a, b] = await Promise.allSettled([fanOutChunk(await node(), first!), fanOutChunk(await node(), second!)]);
    const outcomes = [a, b].map((r) => r.status).sort();
    assert.deepEqual(outcomes, ['fulfilled', 'rejected']);
    const lost = [a, b].find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(lost.reason instanceof BroadcastLost, String(lost.reason));
    assert.deepEqual(await emailsOf(id), { n: 5, contacts: 5 });

    // The winner goes on to the end; the loser, resuming from its stale cursor, cannot send anyone again.
    const winner = a.status === 'fulfilled' ? first! : second!;
    const loser = a.status === 'fulfilled' ? second! : first!;
    await assert.rejects(fanOutChunk(await node(), loser), BroadcastLost);
    const deps = await node();
    while ((await fanOutChunk(deps, winner)) === 'more');
    assert.deepEqual(await emailsOf(id), { n: 12, contacts: 12 });
    assert.equal((await t.resend.broadcasts.get(id)).data!.status, 'sent');
  });

  it('stops at the next chunk once the broadcast is canceled', async () => {
    const id = await sendNow('Canceled');
    const held = await claimBroadcast(t.postline.db, 60_000);
    assert.equal(held?.id, id);
    const deps = await node();
    assert.equal(await fanOutChunk(deps, held!), 'more');
    assert.equal((await t.resend.broadcasts.cancel(id)).error, null);
    await assert.rejects(fanOutChunk(deps, held!), BroadcastLost);
    assert.deepEqual(await emailsOf(id), { n: 5, contacts: 5 });
    assert.equal((await t.resend.broadcasts.get(id)).data!.status, 'canceled');
    const removed = await t.resend.broadcasts.remove(id);
    assert.equal(removed.error?.statusCode, 403, 'it sent some: no longer deletable');
  });

  it('commits chunks accepted two at a time in cursor order; after a failed one the next commits nothing', async () => {
    const id = await sendNow('Pipelined');
    const held = (await claimBroadcast(t.postline.db, 60_000))!;
    const deps = await node(3);
    const a = (await prepareChunk(deps, held, held.cursor))!;
    const b = (await prepareChunk(deps, held, a.last))!;
    // The second is handed over first: it still commits only after the first.
    const second = acceptChunk(
      deps,
      held,
      b,
      new Promise((r) => setTimeout(r, 100)).then(() => first),
    );
    const first = acceptChunk(deps, held, a);
    await Promise.all([first, second]);
    assert.deepEqual(await emailsOf(id), { n: 6, contacts: 6 });

    const c = (await prepareChunk(deps, held, b.last))!;
    const d = (await prepareChunk(deps, held, c.last))!;
    assert.equal((await t.resend.broadcasts.cancel(id)).error, null);
    const third = acceptChunk(deps, held, c);
    const fourth = acceptChunk(deps, held, d, third);
    await assert.rejects(third, BroadcastLost);
    await assert.rejects(fourth, BroadcastLost);
    assert.deepEqual(await emailsOf(id), { n: 6, contacts: 6 });
  });

  it('claims transactional deliveries before older broadcast deliveries', async () => {
    // Everything queued so far is broadcast mail; now a transactional email arrives last.
    const { data, error } = await t.resend.emails.send({ from: FROM, to: 'reset@example.org', subject: 'Password reset', text: 'x' });
    assert.equal(error, null, JSON.stringify(error));
    const queuedBulk = (await t.sql(`SELECT count(*)::int AS n FROM deliveries WHERE status = 'queued' AND priority = 1`))[0].n;
    assert.ok(queuedBulk >= 12, `${queuedBulk} broadcast deliveries waiting`);

    const claimed = await claimDue(t.postline.db, { limit: 3, leaseMs: 60_000, maxBytes: 64 * 1024 * 1024 });
    assert.equal(claimed.length, 3);
    assert.ok(
      claimed.some((c) => c.email.id === data!.id),
      'the newest row, transactional, is in the first claim',
    );
    const bulk = await t.sql('SELECT email_id FROM deliveries WHERE id = ANY($1::bigint[]) AND priority = 1', [claimed.map((c) => c.id)]);
    assert.equal(bulk.length, 2, 'the rest of the batch filled with the oldest broadcast mail');
  });
});
