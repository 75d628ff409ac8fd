// A scheduled email lives only in the database: a Postline that stops before the email is
// due and starts again (here after the due time has passed) still sends it, once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';

describe('scheduled emails across a restart', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
    t.dns.set('example.org', { MX: [{ exchange: 'mx.sink.test', priority: 10 }] });
    t.dns.set('mx.sink.test', { A: ['127.0.0.1'] });
  });
  after(() => t.stop());

  it('delivers emails that came due while Postline was down, and those due after it is back', async () => {
    // How long a stop and start take on this machine now (seconds under load): `later` must
    // come due only after Postline is back, so it is set from this run's own restart.
    const restartStarted = Date.now();
    await t.restart();
    const restartMs = Date.now() - restartStarted;
    const soon = new Date(Date.now() + 1500).toISOString();
    const later = new Date(Date.now() + 1500 + 2 * restartMs + 3000).toISOString();
    const first = await t.resend.emails.send({
      from: 'hello@acme.test',
      to: 'first@example.org',
      subject: 'Due while down',
      html: '<p>1</p>',
      scheduledAt: soon,
    });
    const second = await t.resend.emails.send({
      from: 'hello@acme.test',
      to: 'second@example.org',
      subject: 'Due after',
      html: '<p>2</p>',
      scheduledAt: later,
    });
    assert.equal(first.error, null);
    assert.equal(second.error, null);

    await t.postline.stop();
    // Waiting for the clock, not for a state: the first comes due while Postline is down.
    await sleep(Math.max(0, Date.parse(soon) - Date.now()) + 100);
    assert.equal(t.sink.messages.length, 0);
    await t.restart();
    const restartedAt = Date.now();
    assert.ok(
      restartedAt < Date.parse(later),
      `the restart ended ${restartedAt - Date.parse(later)} ms after the second's time (a restart took ${restartMs} ms before)`,
    );

    await t.sink.waitFor(1, 10_000);
    assert.deepEqual(t.sink.messages[0]!.to, ['first@example.org']);
    await t.sink.waitFor(2, Date.parse(later) - Date.now() + 15_000);
    assert.deepEqual(t.sink.messages[1]!.to, ['second@example.org']);
    assert.ok(Date.now() >= Date.parse(later));

    // The delivered outcome is written just after the sink acknowledges.
    for (const { data } of [first, second]) {
      const types = async () => (await t.sql('SELECT type FROM events WHERE email_id = $1 ORDER BY id', [data!.id])).map((r) => r.type);
      await eventually(async () => (await types()).length >= 3, 15_000, `the outcome of ${data!.id}`);
      assert.deepEqual(await types(), ['email.scheduled', 'email.sent', 'email.delivered']);
    }
    assert.equal(t.sink.messages.length, 2, 'each sent once');
  });
});
