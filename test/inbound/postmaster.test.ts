import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { openSession, sendRaw } from '../smtp/support.js';
import { createVerifiedDomain } from '../support/domains.js';
import type { TestPostline } from '../support/postline.js';
import { deliverInbound, eventually, startInboundTest } from './support.js';

// RFC 5321 §4.5.1: every SMTP server accepts mail for `postmaster` with no domain. Postline
// receives it (and postmaster at the name it greets with, POSTLINE_SMTP_HOSTNAME) for the
// installation's oldest account, the one POSTLINE_BOOTSTRAP_API_KEY belongs to.
describe('inbound: mail for postmaster is taken and received by the installation', () => {
  let t: TestPostline;
  let other: Resend;

  before(async () => {
    t = await startInboundTest();
    await createVerifiedDomain(t, 'sender.test');
    other = new Resend((await createAccount(t.postline.db, 'Other')).token, { baseUrl: t.url });
  });
  after(() => t?.stop());

  const mail = (subject: string) => `From: Remote Admin <admin@remote.test>\r\nTo: postmaster\r\nSubject: ${subject}\r\n\r\nYour server is fine.\r\n`;

  it('accepts RCPT TO:<postmaster> in any case, and stores it as received mail of the oldest account', async () => {
    const s = await openSession(t, { tls: false });
    assert.match(await s.command('MAIL FROM:<admin@remote.test>'), /^250/);
    assert.match(await s.command('RCPT TO:<Postmaster>'), /^250/);
    assert.match(await s.command('DATA'), /^354/);
    s.write(`${mail('To the postmaster')}.\r\n`);
    assert.match(await s.reply(), /^250 /);
    s.close();

    const listed = await eventually(async () => {
      const { data } = await t.resend.emails.receiving.list();
      return data?.data.find((e) => e.subject === 'To the postmaster');
    });
    const { data: email, error } = await t.resend.emails.receiving.get(listed.id);
    assert.equal(error, null, JSON.stringify(error));
    assert.deepEqual(email!.received_for, ['Postmaster']);
    assert.equal(email!.from, 'admin@remote.test');
    assert.match(email!.text!, /Your server is fine/);
    assert.deepEqual((await other.emails.receiving.list()).data!.data, [], 'not the other account');
  });

  it('also takes postmaster@ the host name it greets with (nodemailer as the remote MTA)', async () => {
    await deliverInbound(t, mail('At the host name'), { mailFrom: 'admin@remote.test', rcptTo: ['postmaster@MTA.postline.test'] });
    const listed = await eventually(async () => (await t.resend.emails.receiving.list()).data?.data.find((e) => e.subject === 'At the host name'));
    assert.deepEqual((await t.resend.emails.receiving.get(listed.id)).data!.received_for, ['postmaster@mta.postline.test']);
  });

  it('still refuses other local parts without a domain, and other hosts’ postmasters', async () => {
    const s = await openSession(t, { tls: false });
    assert.match(await s.command('MAIL FROM:<admin@remote.test>'), /^250/);
    assert.match(await s.command('RCPT TO:<postmaster@gmail.test>'), /^554 5\.7\.1/);
    assert.match(await s.command('RCPT TO:<abuse>'), /^5\d\d /);
    s.close();
  });

  it('refuses a submission to a bare postmaster with a reply that says why', async () => {
    const s = await openSession(t, { token: t.apiKey });
    const reply = await sendRaw(s, ['postmaster'], 'From: hello@sender.test\r\nTo: postmaster\r\nSubject: x\r\n\r\nx\r\n');
    assert.match(reply, /^553 5\.1\.3 <postmaster>: submission needs a full address/);
    s.close();
  });
});
