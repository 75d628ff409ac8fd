import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventsOf, eventually, publishMx, send, startDeliveryTest, waitForLastEvent } from './support.js';
import { closeServer } from '../support/eventually.js';

describe('delivery: shutting down lets the attempt in flight finish', () => {
  let t: TestPostline;
  let slow: SMTPServer;
  const received: string[][] = [];
  let dataStarted = 0;
  before(async () => {
    t = await startDeliveryTest();
    // An MX that takes a second to answer the end of DATA.
    slow = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        dataStarted++;
        stream.on('data', () => {});
        stream.on('end', () =>
          setTimeout(() => {
            received.push(session.envelope.rcptTo.map((r) => r.address));
            callback();
          }, 1000),
        );
      },
    });
    await new Promise<void>((resolve) => slow.listen(t.sink.port, '127.0.0.5', () => resolve()));
    publishMx(t, 'slow.test', [{ name: 'mx.slow.test', priority: 10, address: '127.0.0.5' }]);
  });
  after(async () => {
    await t.stop();
    await closeServer(slow);
  });

  it('records the outcome of a transaction that was under way when stop began, and never sends it twice', async () => {
    const id = await send(t, { to: 'patient@slow.test' });
    await eventually(async () => dataStarted > 0);
    await t.restart(); // stop() returns only after the attempt finished and its outcome is written
    assert.deepEqual(received, [['patient@slow.test']]);
    const [row] = await deliveriesOf(t, id);
    assert.equal(row.status, 'delivered');
    assert.equal(row.attempts, 1);
    // Delivered and written before the restart ended: a row in that state is never claimed again.
    await waitForLastEvent(t, id, 'delivered');
    assert.equal(received.length, 1, 'the restarted worker did not send it again');
    assert.deepEqual(
      (await eventsOf(t, id)).map((e) => e.type),
      ['email.sent', 'email.delivered'],
    );
  });
});
