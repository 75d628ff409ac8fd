import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import type { TestPostline } from '../support/postline.js';
import { RawSession } from '../support/smtp-session.js';
import { publishMx } from '../webhooks/support.js';
import { deliverInbound, eventually, startInboundTest } from './support.js';

describe('inbound: which recipients an unauthenticated client may send to', () => {
  let t: TestPostline;
  let port: number;
  let returnPath: string;
  let receivingId: string;

  before(async () => {
    t = await startInboundTest();
    receivingId = (await createVerifiedDomain(t, 'inbox.test', { receiving: true })).id;
    await createVerifiedDomain(t, 'sender.test'); // verified, receiving off
    const unverified = await t.resend.domains.create({ name: 'unverified.test', capabilities: { receiving: 'enabled' } } as any);
    assert.equal(unverified.error, null);
    port = t.postline.smtpPorts.starttls[0]!;
    publishMx(t, 'example.net');
    const sent = await t.resend.emails.send({ from: 'hello@sender.test', to: 'someone@example.net', subject: 'Hi', text: 'Hi' });
    await t.sink.waitFor(1);
    returnPath = t.sink.messages[0]!.from;
    assert.equal(returnPath, `bounces+${sent.data!.id}@send.sender.test`);
  });
  after(() => t?.stop());

  it('takes any address of a receiving domain, and the return path of an email it sent', async () => {
    const s = await RawSession.greeted(port);
    assert.match(await s.command('EHLO mx.example.net'), /^250/);
    assert.match(await s.command('MAIL FROM:<>'), /^250/);
    assert.match(await s.command('RCPT TO:<anything.at.all@inbox.test>'), /^250/);
    assert.match(await s.command('RCPT TO:<Someone@INBOX.test>'), /^250/);
    assert.match(await s.command(`RCPT TO:<${returnPath.toUpperCase()}>`), /^250/);
    s.close();
  });

  it('refuses everything else with 554 5.7.1: other domains, receiving off, never verified, unknown return paths', async () => {
    const s = await RawSession.greeted(port);
    await s.command('EHLO mx.example.net');
    await s.command('MAIL FROM:<someone@example.net>');
    for (const address of [
      'victim@gmail.test',
      'hello@sender.test',
      'hello@unverified.test',
      'bounces+00000000-0000-4000-8000-000000000000@send.sender.test',
      `${returnPath.replace('bounces+', 'other+')}`,
      'someone@sub.inbox.test',
    ]) {
      assert.match(await s.command(`RCPT TO:<${address}>`), /^554 5\.7\.1/, address);
    }
    s.close();
  });

  it('refuses at DATA (550) a message whose every recipient stopped being ours after RCPT TO', async () => {
    const s = await RawSession.greeted(port);
    await s.command('EHLO mx.example.net');
    await s.command('MAIL FROM:<someone@example.net>');
    assert.match(await s.command('RCPT TO:<late@inbox.test>'), /^250/);
    assert.equal((await t.resend.domains.remove(receivingId)).error, null);
    assert.match(await s.command('DATA'), /^354/);
    assert.match(await s.command('Subject: too late\r\n\r\nHello\r\n.'), /^550/);
    s.close();
    assert.deepEqual((await t.resend.emails.receiving.list()).data!.data, []);
  });

  it('answers 250 to a message at a return path that is no report, and changes nothing', async () => {
    await deliverInbound(t, `From: someone@example.net\r\nTo: ${returnPath}\r\nSubject: Auto-Reply\r\n\r\nI am away.\r\n`, {
      mailFrom: 'someone@example.net',
      rcptTo: [returnPath],
    });
    const id = returnPath.slice('bounces+'.length, returnPath.indexOf('@'));
    await eventually(async () => (await t.resend.emails.get(id)).data?.last_event === 'delivered');
    const types = (await t.sql(`SELECT type FROM events WHERE email_id = $1 ORDER BY id`, [id])).map((r) => r.type);
    assert.deepEqual(types, ['email.sent', 'email.delivered']);
  });
});
