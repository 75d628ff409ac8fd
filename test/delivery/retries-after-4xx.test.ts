import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MxSink } from '../support/mx-sink.js';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventually, eventsOf, publishMx, send, startDeliveryTest, waitForLastEvent } from './support.js';

describe('delivery: temporary failures are retried with growing delays', () => {
  let t: TestPostline;
  let late: MxSink | undefined;
  before(async () => {
    // Short delays so a retry happens within the test; the second one is longer than the first.
    t = await startDeliveryTest({ POSTLINE_RETRY_DELAYS: '300ms,600ms' });
    publishMx(t, 'retry.test', [{ name: 'mx.retry.test', priority: 10, address: '127.0.0.1' }]);
  });
  after(async () => {
    await t.stop();
    await late?.stop(); // after Postline has closed its pooled connection to it
  });

  it('records delivery_delayed for each 4xx and delivers when the server accepts', async () => {
    let refusals = 0;
    t.sink.onRecipient = (address) => {
      if (address === 'slow@retry.test' && refusals < 2) {
        refusals++;
        return { code: 451, message: '4.7.1 Greylisted, try again later' };
      }
      return undefined;
    };
    const id = await send(t, { to: 'slow@retry.test' });
    await waitForLastEvent(t, id, 'delivered');
    const events = await eventsOf(t, id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['email.sent', 'email.delivery_delayed', 'email.delivery_delayed', 'email.delivered'],
    );
    assert.deepEqual(events[1]!.data.to, ['slow@retry.test']);
    const [row] = await deliveriesOf(t, id);
    assert.equal(row.status, 'delivered');
    assert.equal(row.attempts, 3);
    assert.match(row.last_response, /^250/);

    // The delays grow: the second wait (600ms) is longer than the first (300ms).
    const times = await t.sql(`SELECT created_at FROM events WHERE email_id = $1 ORDER BY id`, [id]);
    const firstWait = times[2].created_at - times[1].created_at;
    const secondWait = times[3].created_at - times[2].created_at;
    assert.ok(firstWait >= 250, `first retry after ${firstWait}ms`);
    assert.ok(secondWait >= 550, `second retry after ${secondWait}ms`);
  });

  it('keeps the last 4xx reply while the email waits for its next attempt', async () => {
    t.sink.onRecipient = (address) => (address === 'full@retry.test' ? { code: 452, message: '4.2.2 Mailbox full' } : undefined);
    const id = await send(t, { to: 'full@retry.test' });
    await waitForLastEvent(t, id, 'delivery_delayed');
    const [row] = await deliveriesOf(t, id);
    assert.equal(row.status, 'queued');
    assert.equal(row.last_response, '452 4.2.2 Mailbox full');
    t.sink.onRecipient = () => undefined;
    await waitForLastEvent(t, id, 'delivered');
  });

  it('retries when no connection could be made, and delivers once the host is up', async () => {
    publishMx(t, 'down.test', [{ name: 'mx.down.test', priority: 10, address: '127.0.0.3' }]);
    const id = await send(t, { to: 'someone@down.test' });
    await waitForLastEvent(t, id, 'delivery_delayed');
    const [row] = await deliveriesOf(t, id);
    assert.equal(row.status, 'queued');
    assert.match(row.last_response, /^451 4\.4\.1 .*mx\.down\.test \[127\.0\.0\.3\]/);

    late = await new MxSink('127.0.0.3').start(t.sink.port);
    await late.waitFor(1);
    await waitForLastEvent(t, id, 'delivered');
    assert.deepEqual(late.messages[0]!.to, ['someone@down.test']);
    assert.ok((await eventsOf(t, id)).some((e) => e.type === 'email.delivery_delayed'));
  });

  it('retries only the recipients that were deferred, not those already delivered', async () => {
    let refused = false;
    t.sink.onRecipient = (address) => {
      if (address === 'later@retry.test' && !refused) {
        refused = true;
        return { code: 450, message: '4.2.1 Try later' };
      }
      return undefined;
    };
    const before = t.sink.messages.length;
    const id = await send(t, { to: ['now@retry.test', 'later@retry.test'] });
    await eventually(async () => (await deliveriesOf(t, id)).every((d) => d.status === 'delivered'));
    const received = t.sink.messages.slice(before).map((m) => m.to);
    assert.deepEqual(received, [['now@retry.test'], ['later@retry.test']]);
    const types = (await eventsOf(t, id)).map((e) => `${e.type} ${e.data.to.join(',')}`);
    assert.deepEqual(types, [
      'email.sent now@retry.test,later@retry.test',
      'email.delivered now@retry.test',
      'email.delivery_delayed later@retry.test',
      'email.delivered later@retry.test',
    ]);
  });
});
