// A scheduled email lives only in the database: a Postline that stops before the email is
// due and starts again (here after the due time has passed) still sends it, once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createVerifiedDomain } from '../support/domains.js';
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
    const soon = new Date(Date.now() + 1500).toISOString();
    const later = new Date(Date.now() + 6000).toISOString();
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
    await sleep(Math.max(0, Date.parse(soon) - Date.now()) + 500); // the first is overdue now
    assert.equal(t.sink.messages.length, 0);
    await t.restart();

    await t.sink.waitFor(1, 10_000);
    assert.deepEqual(t.sink.messages[0]!.to, ['first@example.org']);
    await t.sink.waitFor(2, 15_000);
    assert.deepEqual(t.sink.messages[1]!.to, ['second@example.org']);
    assert.ok(Date.now() >= Date.parse(later));

    await sleep(300);
    for (const { data } of [first, second]) {
      const types = (await t.sql('SELECT type FROM events WHERE email_id = $1 ORDER BY id', [data!.id])).map((r) => r.type);
      assert.deepEqual(types, ['email.scheduled', 'email.sent', 'email.delivered']);
    }
    assert.equal(t.sink.messages.length, 2, 'each sent once');
  });
});
