import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventually, eventsOf, send, startDeliveryTest, waitForLastEvent } from './support.js';

describe("delivery: Resend's test addresses at resend.dev produce their outcome without a connection", () => {
  let t: TestPostline;
  before(async () => {
    t = await startDeliveryTest();
  });
  after(() => t.stop());

  const noConnection = async (fn: () => Promise<void>) => {
    const connections = t.sink.connections;
    await fn();
    assert.equal(t.sink.connections, connections);
    assert.ok(!t.dns.queries.some((q) => q.name === 'resend.dev'), 'resend.dev is not looked up');
  };

  it('delivered@ and delivered+label@ are delivered', () =>
    noConnection(async () => {
      for (const to of ['delivered@resend.dev', 'delivered+signup@resend.dev']) {
        const id = await send(t, { to });
        await waitForLastEvent(t, id, 'delivered');
        assert.deepEqual(
          (await eventsOf(t, id)).map((e) => e.type),
          ['email.sent', 'email.delivered'],
        );
        assert.equal((await deliveriesOf(t, id))[0].status, 'delivered');
      }
    }));

  it('bounced@ and bounced+label@ bounce like an unknown user', () =>
    noConnection(async () => {
      for (const to of ['bounced@resend.dev', 'bounced+x@resend.dev']) {
        const id = await send(t, { to });
        await waitForLastEvent(t, id, 'bounced');
        const bounced = (await eventsOf(t, id)).at(-1)!;
        assert.equal(bounced.type, 'email.bounced');
        assert.deepEqual(bounced.data.to, [to]);
        assert.deepEqual(bounced.data.bounce, {
          type: 'Permanent',
          subType: 'NoEmail',
          message: 'Unknown User',
          diagnosticCode: ['550 5.1.1 Unknown User'],
        });
        const [row] = await deliveriesOf(t, id);
        assert.equal(row.status, 'bounced');
        assert.equal(row.last_response, '550 5.1.1 Unknown User');
      }
    }));

  it('complained@ is delivered, then complained', () =>
    noConnection(async () => {
      const id = await send(t, { to: 'complained+promo@resend.dev' });
      await waitForLastEvent(t, id, 'complained');
      assert.deepEqual(
        (await eventsOf(t, id)).map((e) => e.type),
        ['email.sent', 'email.delivered', 'email.complained'],
      );
      assert.equal((await deliveriesOf(t, id))[0].status, 'delivered');
    }));

  it('suppressed@ is suppressed as a previous bounce', () =>
    noConnection(async () => {
      const id = await send(t, { to: 'suppressed@resend.dev' });
      await waitForLastEvent(t, id, 'suppressed');
      const events = await eventsOf(t, id);
      assert.deepEqual(
        events.map((e) => e.type),
        ['email.sent', 'email.suppressed'],
      );
      const { suppressed } = events[1]!.data;
      assert.equal(suppressed.type, 'OnAccountSuppressionList');
      assert.equal(suppressed.reason, 'previous_bounce');
      assert.equal(typeof suppressed.message, 'string');
      assert.equal((await deliveriesOf(t, id))[0].status, 'suppressed');
    }));

  it('handles test addresses and real ones in one email', async () => {
    t.dns.set('real.test', { MX: [{ exchange: 'mx.real.test', priority: 10 }] });
    t.dns.set('mx.real.test', { A: ['127.0.0.1'] });
    const before = t.sink.messages.length;
    // bounced+mixed@: a +label address of the simulator bounces like bounced@ itself.
    const id = await send(t, { to: ['delivered@resend.dev', 'bounced+mixed@resend.dev', 'person@real.test'] });
    await eventually(async () => (await deliveriesOf(t, id)).every((d) => d.status !== 'queued'));
    const byRecipient = Object.fromEntries((await deliveriesOf(t, id)).map((d) => [d.recipient, d.status]));
    assert.deepEqual(byRecipient, { 'bounced+mixed@resend.dev': 'bounced', 'delivered@resend.dev': 'delivered', 'person@real.test': 'delivered' });
    assert.deepEqual(
      t.sink.messages.slice(before).map((m) => m.to),
      [['person@real.test']],
    );
  });
});
