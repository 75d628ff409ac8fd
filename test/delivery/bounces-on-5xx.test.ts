import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { deliveriesOf, eventually, eventsOf, publishMx, send, startDeliveryTest, waitForLastEvent } from './support.js';

describe('delivery: permanent refusals (5xx) bounce', () => {
  let t: TestPostline;
  before(async () => {
    t = await startDeliveryTest();
    publishMx(t, 'strict.test', [{ name: 'mx.strict.test', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = (address) => {
      if (address === 'ghost@strict.test') return { code: 550, message: '5.1.1 The email account that you tried to reach does not exist' };
      if (address === 'hoarder@strict.test') return { code: 552, message: '5.2.2 Mailbox full' };
      if (address === 'picky@strict.test') return { code: 554, message: '5.7.1 Relay access denied' };
      if (address === 'gone@strict.test') return { code: 550, message: 'Requested action not taken' };
      return undefined;
    };
    t.sink.onData = (message) =>
      message.to.includes('huge@strict.test') ? { code: 552, message: '5.3.4 Message size exceeds fixed maximum message size' } : undefined;
  });
  after(() => t.stop());

  it('bounces an unknown mailbox with a NoEmail bounce carrying the remote reply', async () => {
    const id = await send(t, { to: 'ghost@strict.test' });
    await waitForLastEvent(t, id, 'bounced');
    const events = await eventsOf(t, id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['email.sent', 'email.bounced'],
    );
    const data = events[1]!.data;
    assert.deepEqual(data.to, ['ghost@strict.test']);
    assert.deepEqual(data.bounce, {
      type: 'Permanent',
      subType: 'NoEmail',
      message: 'The email account that you tried to reach does not exist',
      diagnosticCode: ['550 5.1.1 The email account that you tried to reach does not exist'],
    });
    const [row] = await deliveriesOf(t, id);
    assert.equal(row.status, 'bounced');
    assert.equal(row.attempts, 1);
    assert.equal(row.last_response, '550 5.1.1 The email account that you tried to reach does not exist');
  });

  // A blocklisting reply (Spamhaus) pauses the destination as well: test/delivery/traffic-shaping.test.ts.
  it('classes each bounce (type and subType) by its code and wording; only a permanent one about the address suppresses it', async () => {
    const cases = [
      ['hoarder@strict.test', 'Transient', 'MailboxFull', '552 5.2.2 Mailbox full'],
      ['picky@strict.test', 'Transient', 'General', '554 5.7.1 Relay access denied'],
      ['huge@strict.test', 'Transient', 'MessageTooLarge', '552 5.3.4 Message size exceeds fixed maximum message size'],
      ['gone@strict.test', 'Permanent', 'General', '550 Requested action not taken'],
    ] as const;
    for (const [to, type, subType, reply] of cases) {
      const id = await send(t, { to });
      await waitForLastEvent(t, id, 'bounced');
      const bounce = (await eventsOf(t, id)).at(-1)!.data.bounce;
      assert.deepEqual([bounce.type, bounce.subType], [type, subType], to);
      assert.deepEqual(bounce.diagnosticCode, [reply]);
      assert.equal((await deliveriesOf(t, id))[0].last_response, reply);
      const suppressed = (await t.resend.suppressions.get(to)).data !== null;
      assert.equal(suppressed, type === 'Permanent', `${to} suppressed`);
    }
  });

  it('delivers to the accepted recipients of a transaction and bounces the refused one', async () => {
    // The first test's hard bounce put ghost@ on the suppression list: take it off to try again.
    await t.resend.suppressions.remove('ghost@strict.test');
    const before = t.sink.messages.length;
    const id = await send(t, { to: ['ok@strict.test', 'ghost@strict.test', 'fine@strict.test'] });
    await eventually(async () => (await deliveriesOf(t, id)).every((d) => d.status !== 'queued'));
    const byRecipient = Object.fromEntries((await deliveriesOf(t, id)).map((d) => [d.recipient, d.status]));
    assert.deepEqual(byRecipient, { 'fine@strict.test': 'delivered', 'ghost@strict.test': 'bounced', 'ok@strict.test': 'delivered' });
    assert.deepEqual(
      t.sink.messages.slice(before).map((m) => m.to),
      [['ok@strict.test', 'fine@strict.test']],
    );
    const events = await eventsOf(t, id);
    const summary = events.map((e) => `${e.type} ${e.data.to.join(',')}`);
    assert.deepEqual(summary.slice(1).sort(), ['email.bounced ghost@strict.test', 'email.delivered ok@strict.test,fine@strict.test']);
    const { data } = await t.resend.emails.get(id);
    assert.ok(['bounced', 'delivered'].includes(data!.last_event), data!.last_event);
  });

  it('bounces every recipient when the server refuses the message after DATA', async () => {
    const id = await send(t, { to: ['huge@strict.test', 'other@strict.test'] });
    await eventually(async () => (await deliveriesOf(t, id)).every((d) => d.status === 'bounced'));
    const bounced = (await eventsOf(t, id)).filter((e) => e.type === 'email.bounced');
    assert.equal(bounced.length, 1);
    assert.deepEqual(bounced[0]!.data.to.sort(), ['huge@strict.test', 'other@strict.test']);
    await waitForLastEvent(t, id, 'bounced');
  });
});
