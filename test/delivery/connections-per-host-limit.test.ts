import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventually, FROM, publishMx, startDeliveryTest } from './support.js';

describe('delivery: concurrency per destination host', () => {
  let t: TestPostline;
  before(async () => {
    t = await startDeliveryTest({ POSTLINE_DELIVERY_CONCURRENCY_PER_HOST: '1' });
    publishMx(t, 'busy.test', [{ name: 'mx.busy.test', priority: 10, address: '127.0.0.1' }]);
    publishMx(t, 'also-busy.test', [{ name: 'mx.also-busy.test', priority: 10, address: '127.0.0.1' }]);
  });
  after(() => t.stop());

  it('with a limit of one, sends a whole batch to the host over a single connection, one message after another', async () => {
    const connections = t.sink.connections;
    const before = t.sink.messages.length;
    const { data, error } = await t.resend.batch.send(
      Array.from({ length: 20 }, (_, i) => ({ from: FROM, to: `user${i}@busy.test`, subject: `Batch ${i}`, html: `<p>${i}</p>` })),
    );
    assert.equal(error, null);
    const ids = data!.data.map((d) => d.id);
    await t.sink.waitFor(before + 20);
    for (const id of ids) await eventually(async () => (await deliveriesOf(t, id))[0].status === 'delivered');
    assert.equal(t.sink.connections - connections, 1);
    assert.deepEqual(
      t.sink.messages
        .slice(before)
        .map((m) => m.to[0])
        .sort(),
      Array.from({ length: 20 }, (_, i) => `user${i}@busy.test`).sort(),
    );
  });
});
