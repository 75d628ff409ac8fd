import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventsOf, publishMx, send, startDeliveryTest, waitForLastEvent } from './support.js';

describe('delivery: gives up after the maximum queue age', () => {
  let t: TestPostline;
  before(async () => {
    // The age leaves room for the first attempts even on a loaded machine (seen: a first attempt
    // after 1.5 s, which the email then failed without a delay before it).
    t = await startDeliveryTest({ POSTLINE_RETRY_DELAYS: '300ms', POSTLINE_MAX_QUEUE_AGE: '4s' });
    publishMx(t, 'forever-busy.test', [{ name: 'mx.forever-busy.test', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = () => ({ code: 421, message: '4.3.2 System not accepting network messages' });
  });
  after(() => t.stop());

  it('marks the email failed with email.failed once it is older than POSTLINE_MAX_QUEUE_AGE', async () => {
    const id = await send(t, { to: 'nobody@forever-busy.test' });
    await waitForLastEvent(t, id, 'failed', 30_000);
    const events = await eventsOf(t, id);
    const types = events.map((e) => e.type);
    assert.equal(types[0], 'email.sent');
    assert.equal(types.at(-1), 'email.failed');
    assert.ok(types.slice(1, -1).length >= 1 && types.slice(1, -1).every((type) => type === 'email.delivery_delayed'), types.join(' '));
    assert.deepEqual(events.at(-1)!.data.failed, { reason: 'max_queue_age_exceeded', response: '421 4.3.2 System not accepting network messages' });
    assert.deepEqual(events[1]!.data.delay, { response: '421 4.3.2 System not accepting network messages' });
    assert.deepEqual(events.at(-1)!.data.to, ['nobody@forever-busy.test']);
    const [row] = await deliveriesOf(t, id);
    assert.equal(row.status, 'failed');
    assert.equal(row.last_response, '421 4.3.2 System not accepting network messages');

    // Nothing is attempted any more.
    const attempts = row.attempts;
    await new Promise((r) => setTimeout(r, 700)); // a negative check: a failed row is never claimed again
    assert.equal((await deliveriesOf(t, id))[0].attempts, attempts);
  });
});
