// No open relay: a client that has not authenticated may only deliver to addresses inbound
// mail accepts (our receiving domains); anything else is refused at RCPT TO with 554 5.7.1.
// An authenticated session submits, even to our own domains.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import type { TestPostline } from '../support/postline.js';
import { FROM, implicitPort, message, openSession, RawSession, sendRaw, smtpEmails, startSmtpTest, starttlsPort } from './support.js';

describe('SMTP: no open relay', () => {
  let t: TestPostline;
  before(async () => {
    t = await startSmtpTest();
    await createVerifiedDomain(t, 'inbox.test', { receiving: true });
  });
  after(() => t.stop());

  it('refuses every recipient that is not on a receiving domain of ours, on every port', async () => {
    for (const implicit of [false, true]) {
      const session = await RawSession.connect(implicit ? implicitPort(t) : starttlsPort(t), { implicit });
      assert.match(await session.reply(), /^220 /);
      assert.match(await session.command('EHLO spammer.test'), /^250/);
      assert.match(await session.command('MAIL FROM:<spammer@spam.test>'), /^250 /);
      for (const rcpt of ['victim@example.net', 'someone@sender.test', 'user@unknown-domain.test']) {
        assert.match(await session.command(`RCPT TO:<${rcpt}>`), new RegExp(`^554 5\\.7\\.1 <${rcpt}>: Relay access denied$`));
      }
      assert.match(await session.command('DATA'), /^503 5\.5\.1 /, 'no accepted recipient, no DATA');
      assert.match(await session.command('QUIT'), /^221 /);
      session.close();
    }
    assert.equal((await smtpEmails(t)).length, 0);
  });

  it('takes mail for a receiving domain from an unauthenticated client and hands it to inbound mail', async () => {
    const session = await openSession(t, { tls: false });
    const reply = await sendRaw(
      session,
      ['support@inbox.test'],
      message({ From: 'Remote <remote@remote.test>', To: 'support@inbox.test', Subject: 'Inbound over SMTP', 'Message-ID': '<inbound-1@remote.test>' }),
      'remote@remote.test',
    );
    assert.match(reply, /^250 2\.0\.0 /);
    session.close();
    const list = await t.resend.emails.receiving.list();
    assert.equal(list.error, null, JSON.stringify(list.error));
    assert.ok(
      list.data!.data.some((e: any) => e.subject === 'Inbound over SMTP'),
      JSON.stringify(list.data),
    );
    assert.equal((await smtpEmails(t)).length, 0, 'received, not submitted');
  });

  it('mixes: relay refused per recipient, the receiving one kept', async () => {
    const session = await openSession(t, { tls: false });
    assert.match(await session.command('MAIL FROM:<remote@remote.test>'), /^250 /);
    assert.match(await session.command('RCPT TO:<elsewhere@example.net>'), /^554 5\.7\.1 /);
    assert.match(await session.command('RCPT TO:<team@inbox.test>'), /^250 /);
    session.close();
  });

  it('submits from an authenticated session, also to our own receiving domain', async () => {
    const session = await openSession(t, { token: t.apiKey });
    const reply = await sendRaw(session, ['support@inbox.test'], message({ From: FROM, To: 'support@inbox.test', Subject: 'Submitted to ourselves' }));
    assert.match(reply, /^250 2\.0\.0 Ok: queued as /);
    session.close();
    const [email] = await smtpEmails(t);
    assert.equal(email.subject, 'Submitted to ourselves');
  });
});
