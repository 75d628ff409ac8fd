// AUTH: PLAIN and LOGIN, only once the session is encrypted, with the user `resend` or
// `postline` and an API key. Wrong credentials are 535 5.7.8, answered slowly; the third
// failure on a connection ends it with 421 4.7.0; a deleted key stops working. The server
// keeps serving other clients meanwhile.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { FROM, implicitPort, message, openSession, RawSession, sendRaw, startSmtpTest, transport } from './support.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('SMTP AUTH', () => {
  let t: TestPostline;
  before(async () => {
    t = await startSmtpTest();
  });
  after(() => t.stop());

  it('offers AUTH only after STARTTLS, and refuses it before', async () => {
    const session = await openSession(t, { tls: false });
    assert.match(await session.command('EHLO client.test'), /STARTTLS/);
    const plain = await session.command('EHLO client.test');
    assert.doesNotMatch(plain, /AUTH/);
    assert.match(plain, /SIZE 41943040/);
    assert.match(plain, /ENHANCEDSTATUSCODES/);
    assert.doesNotMatch(plain, /SMTPUTF8/);
    // RFC 4954 §6: the reply that tells the client to start TLS first.
    assert.equal(await session.login(t.apiKey), '538 5.7.11 Encryption required for requested authentication mechanism');
    assert.equal(await session.command('auth login'), '538 5.7.11 Encryption required for requested authentication mechanism');
    const secure = await session.startTls();
    assert.match(secure, /AUTH PLAIN LOGIN/);
    assert.doesNotMatch(secure, /STARTTLS/);
    assert.match(await session.login(t.apiKey), /^235 /);
    session.close();
  });

  it('offers AUTH at once on the implicit-TLS port, and takes AUTH LOGIN', async () => {
    const session = await RawSession.connect(implicitPort(t), { implicit: true });
    assert.match(await session.reply(), /^220 /);
    assert.match(await session.command('EHLO client.test'), /AUTH PLAIN LOGIN/);
    assert.match(await session.command('AUTH LOGIN'), /^334 /);
    assert.match(await session.command(b64('postline')), /^334 /);
    assert.match(await session.command(b64(t.apiKey)), /^235 /);
    assert.match(await sendRaw(session, ['login@example.net'], message({ From: FROM, To: 'login@example.net', Subject: 'Via LOGIN' })), /^250 /);
    session.close();
  });

  it('refuses a wrong user literal, a wrong key and base64 garbage, then disconnects after three failures', async () => {
    const session = await openSession(t);
    const started = Date.now();
    assert.match(await session.login(t.apiKey, 'admin'), /^535 5\.7\.8 Authentication credentials invalid$/);
    assert.match(await session.command(`AUTH PLAIN ${b64('\0resend\0re_wrong_key')}`), /^535 5\.7\.8 /);
    assert.match(await session.command('AUTH PLAIN !!!not-base64***'), /^501 5\.5\.4 /, 'garbage is a syntax error');
    // Meanwhile another client is served at once.
    const other = await transport(t).sendMail({ from: FROM, to: 'other@example.net', subject: 'Not held up', text: 'x' });
    assert.match(other.response, /^250 /);
    assert.match(await session.login('re_another_wrong_key'), /^421 4\.7\.0 Too many failed authentication attempts/);
    await session.closed;
    assert.ok(Date.now() - started >= 300, 'failures are answered after a delay');
  });

  it('stops a deleted key, in new sessions and in one already authenticated with it', async () => {
    const created = await t.resend.apiKeys.create({ name: 'short-lived' });
    const token = created.data!.token;
    const open = await openSession(t, { token });
    assert.match(await sendRaw(open, ['k@example.net'], message({ From: FROM, To: 'k@example.net', Subject: 'Before' })), /^250 /);
    await t.resend.apiKeys.remove(created.data!.id);
    assert.match(await open.command(`MAIL FROM:<hello@sender.test>`), /^530 5\.7\.0 Authentication required: the API key of this session was deleted/);
    assert.match(await open.login(t.apiKey), /^235 /, 'the session may authenticate again with a valid key');
    assert.match(await sendRaw(open, ['k@example.net'], message({ From: FROM, To: 'k@example.net', Subject: 'After' })), /^250 /);
    open.close();
    const session = await openSession(t);
    assert.match(await session.login(token), /^535 5\.7\.8 /);
    session.close();
  });

  it('lets nodemailer report a wrong password as an authentication error', async () => {
    await assert.rejects(
      transport(t, { pass: 're_12345678_abcdefghijklmnopqrstuvwx' }).sendMail({ from: FROM, to: 'x@example.net', subject: 's', text: 't' }),
      (err: any) => {
        assert.equal(err.code, 'EAUTH');
        assert.equal(err.responseCode, 535);
        return true;
      },
    );
  });
});
