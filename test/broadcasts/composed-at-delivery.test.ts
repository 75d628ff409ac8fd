// A broadcast's emails are queued as rows and composed by the delivery worker just before their
// first attempt (src/emails/compose-deferred.ts). What arrives must be what an email composed at
// accept would be: DKIM-signed, tracked when the domain tracks clicks, with a text part made
// from the html; and once composed the message is kept, so a retry after a 4xx sends the very
// same bytes and GET /emails/:id shows the text that went out.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { verifyDkim, waitForLastEvent } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { createContacts, createSegment, FROM, PUBLIC_URL, startBroadcastTest, waitForStatus } from './support.js';

describe('broadcasts: composed at delivery', () => {
  let t: TestPostline;
  before(async () => {
    t = await startBroadcastTest({ POSTLINE_RETRY_DELAYS: '300ms' });
    const [domain] = (await t.resend.domains.list()).data!.data;
    const tracked = await t.resend.domains.update({ id: domain!.id, clickTracking: true });
    assert.equal(tracked.error, null, JSON.stringify(tracked.error));
  });
  after(() => t.stop());

  it('signs and tracks at delivery, keeps the message for the retry, and records the text sent', async () => {
    const segmentId = await createSegment(t);
    await createContacts(t, segmentId, [{ email: 'ann@example.org', firstName: 'Ann' }, { email: 'bob@example.org' }]);
    const offered: Buffer[] = [];
    t.sink.onData = (message) => {
      if (!message.to.includes('ann@example.org')) return undefined;
      offered.push(message.raw);
      return offered.length === 1 ? { code: 451, message: 'temporary local problem' } : undefined;
    };

    const created = await t.resend.broadcasts.create({
      segmentId,
      from: FROM,
      subject: 'Hello {{{FIRST_NAME|friend}}}',
      html: '<p>Hi {{{FIRST_NAME|there}}}, see <a href="https://example.com/launch">the launch</a></p>',
      send: true,
    });
    assert.equal(created.error, null, JSON.stringify(created.error));
    await waitForStatus(t, created.data!.id, 'sent');
    await t.sink.waitFor(2);

    assert.equal(offered.length, 2, 'ann was offered the message twice: refused, then accepted');
    assert.ok(offered[0]!.equals(offered[1]!), 'the retry sends the message composed for the first attempt, byte for byte');
    const raw = offered[1]!;
    assert.deepEqual(await verifyDkim(t, raw), [{ result: 'pass', domain: 'news.test' }]);
    const mail = await PostalMime.parse(raw);
    assert.equal(mail.subject, 'Hello Ann');
    assert.ok(mail.html!.includes(`href="${PUBLIC_URL}/t/c/`), 'the link is tracked');
    assert.ok(!mail.html!.includes('href="https://example.com/launch"'));
    assert.match(mail.text ?? '', /Hi Ann, see the launch/i, 'a text part made from the html');

    const [email] = (await t.sql(`SELECT id FROM emails WHERE to_addresses = '{ann@example.org}'`)) as { id: string }[];
    const got = await t.resend.emails.get(email!.id);
    assert.equal(got.error, null, JSON.stringify(got.error));
    assert.equal(got.data!.subject, 'Hello Ann');
    assert.match(got.data!.text ?? '', /Hi Ann, see the launch/i, 'the text part that went out');
    // The sink answers before the outcome commits: wait for it rather than read it at once.
    await waitForLastEvent(t, email!.id, 'delivered');
  });
});
