import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MxSink } from '../support/mx-sink.js';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventsOf, publishMx, send, startDeliveryTest, waitForLastEvent } from './support.js';

describe('delivery: MX hosts are tried in preference order', () => {
  let t: TestPostline;
  let backup: MxSink;
  let preferred: MxSink;
  before(async () => {
    t = await startDeliveryTest();
    backup = await new MxSink('127.0.0.3').start(t.sink.port);
    preferred = await new MxSink('127.0.0.4').start(t.sink.port);
  });
  after(async () => {
    await t.stop();
    await Promise.all([backup.stop(), preferred.stop()]);
  });

  it('uses the second MX when the first cannot be connected to', async () => {
    // 127.0.0.2 has no server on the outbound port: the connection is refused.
    publishMx(t, 'two-mx.test', [
      { name: 'mx2.two-mx.test', priority: 20, address: '127.0.0.3' },
      { name: 'mx1.two-mx.test', priority: 10, address: '127.0.0.2' },
    ]);
    const id = await send(t, { to: 'user@two-mx.test' });
    await waitForLastEvent(t, id, 'delivered');
    assert.deepEqual(
      backup.messages.map((m) => m.to),
      [['user@two-mx.test']],
    );
    assert.equal((await deliveriesOf(t, id))[0].attempts, 1, 'one attempt, two hosts tried');
    assert.deepEqual(
      (await eventsOf(t, id)).map((e) => e.type),
      ['email.sent', 'email.delivered'],
    );
  });

  it('uses the most preferred MX (lowest number) when it is up', async () => {
    publishMx(t, 'ordered.test', [
      { name: 'mx-b.ordered.test', priority: 50, address: '127.0.0.3' },
      { name: 'mx-a.ordered.test', priority: 5, address: '127.0.0.4' },
    ]);
    const id = await send(t, { to: 'user@ordered.test' });
    await waitForLastEvent(t, id, 'delivered');
    assert.deepEqual(
      preferred.messages.map((m) => m.to),
      [['user@ordered.test']],
    );
    assert.equal(backup.messages.length, 1, 'nothing more went to the backup');
  });

  it('tries the next MX when the first has no address', async () => {
    publishMx(t, 'dangling.test', [
      { name: 'gone.dangling.test', priority: 10 },
      { name: 'mx.dangling.test', priority: 20, address: '127.0.0.4' },
    ]);
    const id = await send(t, { to: 'user@dangling.test' });
    await waitForLastEvent(t, id, 'delivered');
    assert.deepEqual(preferred.messages.at(-1)!.to, ['user@dangling.test']);
  });
});
