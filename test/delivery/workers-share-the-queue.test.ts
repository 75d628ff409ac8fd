import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startPostline, type Postline } from '../../src/server.js';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventsOf, eventually, FROM, publishMx, startDeliveryTest } from './support.js';

describe('delivery: several workers on one database', () => {
  let t: TestPostline;
  const others: Postline[] = [];
  before(async () => {
    t = await startDeliveryTest();
    publishMx(t, 'shared.test', [{ name: 'mx.shared.test', priority: 10, address: '127.0.0.1' }]);
    // Two more worker-only nodes on the same database (by URL, as separate nodes would be).
    const databaseUrl = (t.postline.db.pool as any).options.connectionString as string;
    for (let i = 0; i < 2; i++) {
      others.push(await startPostline({ ...t.postline.config, databaseUrl, port: 0 }, { roles: ['worker'], logger: t.postline.logger }));
    }
  });
  after(async () => {
    for (const other of others) await other.stop();
    await t.stop();
  });

  it('delivers every message exactly once and reports each recipient delivered once', async () => {
    const before = t.sink.messages.length;
    const ids: string[] = [];
    for (let round = 0; round < 3; round++) {
      const { data, error } = await t.resend.batch.send(
        Array.from({ length: 100 }, (_, i) => ({
          from: FROM,
          to: [`a${round}-${i}@shared.test`, `b${round}-${i}@shared.test`],
          subject: `#${i}`,
          html: '<p>x</p>',
        })),
      );
      assert.equal(error, null);
      ids.push(...data!.data.map((d) => d.id));
    }
    await eventually(async () => t.sink.messages.slice(before).flatMap((m) => m.to).length >= 600, 30_000);
    await eventually(async () => {
      const [{ n }] = await t.sql(`SELECT count(*)::int AS n FROM deliveries WHERE email_id = ANY($1) AND status = 'delivered'`, [ids]);
      return n === 600;
    }, 30_000);
    await new Promise((r) => setTimeout(r, 300)); // anything duplicated would show up by now
    const received = t.sink.messages.slice(before);
    // Two workers may each claim one recipient row of the same email (SKIP LOCKED splits an
    // email's rows across claims), which sends that email in two SMTP transactions: more
    // messages than emails is fine, a recipient reached twice is not.
    assert.ok(received.length >= 300 && received.length <= 600, `${received.length} messages`);
    const recipients = received.flatMap((m) => m.to);
    assert.equal(recipients.length, 600, 'no recipient is sent to twice');
    assert.equal(new Set(recipients).size, 600);
    const events = await t.sql(`SELECT data FROM events WHERE email_id = ANY($1) AND type = 'email.delivered'`, [ids]);
    const reported = events.flatMap((e) => e.data.to as string[]);
    assert.equal(reported.length, 600, 'each recipient is reported delivered once');
    assert.equal(new Set(reported).size, 600);
    for (const id of ids.slice(0, 5)) {
      const types = (await eventsOf(t, id)).map((e) => e.type);
      assert.equal(types[0], 'email.sent');
      assert.ok(types.length >= 2 && types.slice(1).every((type) => type === 'email.delivered'), types.join());
      assert.ok((await deliveriesOf(t, id)).every((d) => d.attempts === 1));
    }
  });
});
