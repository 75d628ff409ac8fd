// Resend-Idempotency-Key over SMTP (resend-compat-notes §4, §9): the same message sent again
// with the same key is answered with the first email's id and not sent again, even though
// the client built a new Message-ID, Date and MIME boundaries; another message under the
// same key is refused for good; keys are the account's, apart from the API's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { FROM, message, openSession, queuedId, sendRaw, smtpEmails, startSmtpTest, transport } from './support.js';

describe('SMTP Resend-Idempotency-Key', () => {
  let t: TestPostline;
  before(async () => {
    t = await startSmtpTest();
  });
  after(() => t.stop());

  const mail = (subject: string, key: string) => ({
    from: FROM,
    to: 'idem@example.net',
    subject,
    html: '<p>Once</p>',
    attachments: [{ filename: 'a.txt', content: 'attached' }],
    headers: { 'Resend-Idempotency-Key': key },
  });

  it('answers a repeated message with the first id and sends it once', async () => {
    const before = (await smtpEmails(t)).length;
    const sinkBefore = t.sink.messages.length;
    const first = await transport(t).sendMail(mail('Order 1', 'order/1'));
    const second = await transport(t, { implicit: true }).sendMail(mail('Order 1', 'order/1'));
    const id = queuedId(first.response);
    assert.equal(queuedId(second.response), id);
    assert.match(second.response, /not sent again/);
    assert.equal((await smtpEmails(t)).length, before + 1);
    await t.sink.waitFor(sinkBefore + 1);
    // One email, delivered and done with: nothing more of it can come.
    await eventually(async () => (await t.resend.emails.get(id)).data?.last_event === 'delivered', 15_000, 'the email delivered');
    assert.equal(t.sink.messages.length, sinkBefore + 1);
    assert.doesNotMatch(t.sink.messages.at(-1)!.raw.toString(), /Resend-Idempotency-Key/i, 'the key is not passed on to recipients');
  });

  it('refuses another message under a used key with 554 5.7.0', async () => {
    await transport(t).sendMail(mail('Order 2', 'order/2'));
    await assert.rejects(transport(t).sendMail(mail('Order 2, changed', 'order/2')), (err: any) => {
      assert.equal(err.responseCode, 554);
      assert.match(err.response, /^554 5\.7\.0 .*different message/);
      return true;
    });
  });

  it('keeps SMTP keys apart from the API endpoint keys', async () => {
    const smtp = queuedId((await transport(t).sendMail(mail('Shared key', 'shared/1'))).response);
    const api = await t.resend.emails.send({ from: FROM, to: 'idem@example.net', subject: 'Shared key', html: '<p>x</p>' }, { idempotencyKey: 'shared/1' });
    assert.equal(api.error, null);
    assert.notEqual(api.data!.id, smtp);
  });

  it('refuses a key longer than 256 characters with 554 5.5.4', async () => {
    const session = await openSession(t, { token: t.apiKey });
    const reply = await sendRaw(
      session,
      ['idem@example.net'],
      message({ From: FROM, To: 'idem@example.net', Subject: 'Long key', 'Resend-Idempotency-Key': 'k'.repeat(257) }),
    );
    assert.match(reply, /^554 5\.5\.4 Invalid Resend-Idempotency-Key/);
    session.close();
  });
});
