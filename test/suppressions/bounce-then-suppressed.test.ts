import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deliveriesOf, eventsOf, publishMx, send, startDeliveryTest, waitForLastEvent } from '../delivery/support.js';
import { MxSink } from '../support/mx-sink.js';
import type { TestPostline } from '../support/postline.js';

describe('suppression: a hard bounce or a complaint stops later sends to the address', () => {
  let t: TestPostline;
  const rcpts: string[] = [];
  before(async () => {
    t = await startDeliveryTest();
    publishMx(t, 'strict.test', [{ name: 'mx.strict.test', priority: 10, address: '127.0.0.1' }]);
    t.sink.onRecipient = (address) => {
      rcpts.push(address);
      if (address.startsWith('ghost')) return { code: 550, message: '5.1.1 The email account that you tried to reach does not exist' };
      if (address === 'full@strict.test') return { code: 552, message: '5.2.2 Mailbox full' };
      return undefined;
    };
  });
  let elsewhere: MxSink | undefined;
  after(async () => {
    await t.stop(); // first: Postline's pooled connections would hold the sink's close
    await elsewhere?.stop();
  });

  it('lists a hard-bounced address (origin bounce, source_id the email) in the outcome', async () => {
    const id = await send(t, { to: 'ghost@strict.test' });
    await waitForLastEvent(t, id, 'bounced');
    const { data, error } = await t.resend.suppressions.get('ghost@strict.test');
    assert.equal(error, null, JSON.stringify(error));
    assert.equal(data!.object, 'suppression');
    assert.equal(data!.email, 'ghost@strict.test');
    assert.equal(data!.origin, 'bounce');
    assert.equal(data!.source_id, id);
  });

  it('does not attempt a suppressed recipient: queue row suppressed, email.suppressed, the others delivered', async () => {
    rcpts.length = 0;
    const id = await send(t, { to: ['Ghost@Strict.test', 'ok@strict.test'] });
    await waitForLastEvent(t, id, 'delivered');
    const deliveries = Object.fromEntries((await deliveriesOf(t, id)).map((d) => [d.recipient, [d.status, d.attempts]]));
    assert.deepEqual(deliveries, { 'Ghost@strict.test': ['suppressed', 0], 'ok@strict.test': ['delivered', 1] });
    assert.deepEqual(rcpts, ['ok@strict.test'], 'the suppressed address never reached the MX');
    const events = await eventsOf(t, id);
    assert.deepEqual(
      events.map((e) => e.type),
      ['email.sent', 'email.suppressed', 'email.delivered'],
    );
    const suppressed = events[1]!.data;
    assert.deepEqual(suppressed.to, ['Ghost@strict.test']);
    assert.equal(suppressed.email_id, id);
    assert.deepEqual(Object.keys(suppressed.suppressed).sort(), ['diagnosticCode', 'message', 'reason', 'type']);
    assert.equal(suppressed.suppressed.type, 'OnAccountSuppressionList');
    assert.equal(suppressed.suppressed.reason, 'previous_bounce');
    assert.deepEqual(suppressed.suppressed.diagnosticCode, []);
    assert.match(suppressed.suppressed.message, /suppression list/);
  });

  it('makes no connection at all for an email whose only recipient is suppressed', async () => {
    const connections = t.sink.connections;
    rcpts.length = 0;
    const id = await send(t, { to: 'ghost@strict.test' });
    // Decided at accept: the email reads `suppressed` as soon as it is accepted.
    const { data } = await t.resend.emails.get(id);
    assert.equal(data!.last_event, 'suppressed');
    assert.deepEqual(Object.keys(data!).sort(), [
      'bcc',
      'cc',
      'created_at',
      'from',
      'html',
      'id',
      'last_event',
      'message_id',
      'object',
      'reply_to',
      'scheduled_at',
      'subject',
      'tags',
      'text',
      'to',
      'topic_id',
    ]);
    const listed = await t.resend.emails.list({ limit: 1 });
    assert.equal(listed.data!.data[0]!.last_event, 'suppressed');
    // Another email right after it is delivered, so the worker has run past this one; it goes
    // to another MX host (127.0.0.3), so strict.test's MX should see no connection at all.
    elsewhere = await new MxSink('127.0.0.3').start(t.sink.port);
    publishMx(t, 'elsewhere.test', [{ name: 'mx.elsewhere.test', priority: 10, address: '127.0.0.3' }]);
    const other = await send(t, { to: 'ok@elsewhere.test' });
    await waitForLastEvent(t, other, 'delivered');
    assert.deepEqual(
      elsewhere.messages.map((m) => m.to),
      [['ok@elsewhere.test']],
    );
    assert.deepEqual(rcpts, []);
    assert.equal(t.sink.connections, connections, 'no connection to strict.test’s MX');
    assert.deepEqual(
      (await deliveriesOf(t, id)).map((d) => [d.status, d.attempts]),
      [['suppressed', 0]],
    );
  });

  it('keeps an address whose bounce is about the message or a passing state (mailbox full)', async () => {
    const id = await send(t, { to: 'full@strict.test' });
    await waitForLastEvent(t, id, 'bounced');
    const { error } = await t.resend.suppressions.get('full@strict.test');
    assert.deepEqual(error, { statusCode: 404, message: 'Suppression not found', name: 'not_found' });
  });

  it("never lists Resend's test addresses: bounced@ and complained@resend.dev give their outcome every time", async () => {
    for (const to of ['bounced@resend.dev', 'complained@resend.dev', 'bounced+signup@resend.dev']) {
      const outcome = to.startsWith('bounced') ? 'bounced' : 'complained';
      for (let i = 0; i < 2; i++) {
        const id = await send(t, { to });
        await waitForLastEvent(t, id, outcome);
        assert.ok(!(await eventsOf(t, id)).some((e) => e.type === 'email.suppressed'), `${to}, send ${i + 1}`);
      }
      const { error } = await t.resend.suppressions.get(to);
      assert.deepEqual(error, { statusCode: 404, message: 'Suppression not found', name: 'not_found' }, to);
    }
    const { data } = await t.resend.suppressions.list();
    assert.ok(!data!.data.some((s) => s.email.endsWith('@resend.dev')));
    // suppressed@resend.dev still simulates a suppression.
    const id = await send(t, { to: 'suppressed@resend.dev' });
    await waitForLastEvent(t, id, 'suppressed');
  });

  it('sends again once the address is removed from the list', async () => {
    const removed = await t.resend.suppressions.remove('ghost@strict.test');
    assert.equal(removed.error, null);
    assert.equal(removed.data!.deleted, true);
    rcpts.length = 0;
    const id = await send(t, { to: 'ghost@strict.test' });
    await waitForLastEvent(t, id, 'bounced');
    assert.deepEqual(rcpts, ['ghost@strict.test']);
    // …and the new bounce lists it again.
    const { data } = await t.resend.suppressions.get('ghost@strict.test');
    assert.equal(data!.source_id, id);
  });

  it('decides a scheduled email at accept too: it stays scheduled unless nobody is left', async () => {
    const mixed = await send(t, { to: ['ghost@strict.test', 'later@strict.test'], scheduledAt: 'in 1 hour' });
    const { data } = await t.resend.emails.get(mixed);
    assert.equal(data!.last_event, 'scheduled');
    const statuses = Object.fromEntries((await deliveriesOf(t, mixed)).map((d) => [d.recipient, d.status]));
    assert.deepEqual(statuses, { 'ghost@strict.test': 'suppressed', 'later@strict.test': 'scheduled' });
    assert.deepEqual(
      (await eventsOf(t, mixed)).map((e) => e.type),
      ['email.scheduled', 'email.suppressed'],
    );
    const alone = await send(t, { to: 'ghost@strict.test', scheduledAt: 'in 1 hour' });
    assert.equal((await t.resend.emails.get(alone)).data!.last_event, 'suppressed');
  });

  it('suppresses a manually listed address, reading as a previous bounce', async () => {
    await t.resend.suppressions.add({ email: 'blocked@strict.test' });
    rcpts.length = 0;
    const id = await send(t, { to: ['blocked@strict.test'], cc: 'ok@strict.test' });
    await waitForLastEvent(t, id, 'delivered');
    assert.deepEqual(rcpts, ['ok@strict.test']);
    const suppressed = (await eventsOf(t, id)).find((e) => e.type === 'email.suppressed')!;
    assert.equal(suppressed.data.suppressed.reason, 'previous_bounce');
    assert.match(suppressed.data.suppressed.message, /added to the list/);
  });
});
