// A broadcast email is composed by the delivery worker (src/emails/compose-deferred.ts). One
// that never can be (its sending domain was deleted after the fan-out queued it) fails once,
// with email.failed, instead of being retried for days. Driven step by step: no worker role
// runs, so the fan-out and the delivery worker move only when the test moves them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fanOutChunk } from '../../src/broadcasts/fan-out-chunk.js';
import { claimBroadcast } from '../../src/broadcasts/fan-out.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { DnsResolver } from '../../src/dns/resolver.js';
import { composeDeferred } from '../../src/emails/compose-deferred.js';
import { acceptDeps } from '../../src/emails/routes.js';
import { urlSigner } from '../../src/signed-urls/url-signing.js';
import type { TestPostline } from '../support/postline.js';
import { createContacts, createSegment, eventually, FROM, startBroadcastTest } from './support.js';

describe('broadcasts: an email that cannot be composed at delivery', () => {
  let t: TestPostline;
  before(async () => {
    t = await startBroadcastTest({}, ['api']);
  });
  after(() => t.stop());

  it('fails with email.failed when its domain was deleted after it was queued', async () => {
    const { db, config, logger } = t.postline;
    const segmentId = await createSegment(t);
    await createContacts(t, segmentId, [{ email: 'ann@example.org' }, { email: 'bob@example.org' }]);
    const { data, error } = await t.resend.broadcasts.create({ segmentId, from: FROM, subject: 'Gone', text: 'x', send: true });
    assert.equal(error, null, JSON.stringify(error));
    const broadcast = await claimBroadcast(db);
    assert.equal(broadcast?.id, data!.id);
    const dns = new DnsResolver(config.dnsServers);
    const accept = acceptDeps(db, config, dns);
    const signer = await urlSigner(db, 'unsubscribe');
    const deps = { db, accept, links: async () => ({ publicUrl: config.publicUrl, signer }), chunkSize: 10, leaseMs: 60_000, logger };
    while ((await fanOutChunk(deps, broadcast!)) === 'more');
    const queued = await t.sql('SELECT id FROM emails WHERE broadcast_id = $1 AND mime IS NULL', [data!.id]);
    assert.equal(queued.length, 2, 'queued without their messages');

    const [domain] = (await t.resend.domains.list()).data!.data;
    assert.equal((await t.resend.domains.remove(domain!.id)).error, null);
    const composed = await composeDeferred(
      db,
      accept.tracking,
      queued.map((r) => r.id),
    );
    for (const result of composed.values()) assert.ok(result instanceof Error, 'no message without a DKIM key');

    const worker = new DeliveryWorker({ db, config, resolver: dns, logger, composeDeferred: (ids) => composeDeferred(db, accept.tracking, ids) });
    worker.start();
    try {
      await eventually(
        async () => {
          const rows = await t.sql(`SELECT status FROM deliveries d JOIN emails e ON e.id = d.email_id WHERE e.broadcast_id = $1`, [data!.id]);
          return rows.every((r) => r.status === 'failed');
        },
        15_000,
        'both deliveries failed',
      );
    } finally {
      await worker.stop();
    }
    const events = await t.sql(`SELECT v.type, v.data FROM events v JOIN emails e ON e.id = v.email_id WHERE e.broadcast_id = $1 AND v.type = 'email.failed'`, [
      data!.id,
    ]);
    assert.equal(events.length, 2);
    assert.equal(events[0].data.failed.reason, 'message_not_composed', JSON.stringify(events[0].data));
    assert.equal(t.sink.messages.length, 0, 'nothing was sent');
    const [{ attempts }] = await t.sql(
      `SELECT max(d.attempts)::int AS attempts FROM deliveries d JOIN emails e ON e.id = d.email_id WHERE e.broadcast_id = $1`,
      [data!.id],
    );
    assert.equal(attempts, 1, 'not retried');
  });
});
