// Swaks-style raw sessions with what well-behaved clients never send: commands out of order,
// pipelining abuse, 8-bit and SMTPUTF8, over-long lines, bad or missing From, too many
// recipients, too big, a client gone in the middle of DATA. Each gets a proper reply with an
// enhanced status code, nothing half-stored, and the server keeps serving everyone else.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, verifyDkim } from '../delivery/support.js';
import type { TestPostline } from '../support/postline.js';
import { storedMessage } from '../support/stored-message.js';
import { FROM, message, openSession, RawSession, sendRaw, SENDER_DOMAIN, smtpEmails, startSmtpTest, starttlsPort, transport } from './support.js';

describe('SMTP: bad input in raw sessions', () => {
  let t: TestPostline;
  let session: RawSession;
  before(async () => {
    t = await startSmtpTest();
  });
  after(async () => {
    // Whatever happened above, the server still takes a normal message.
    const info = await transport(t).sendMail({ from: FROM, to: 'after@example.net', subject: 'Still up', text: 'yes' });
    assert.match(info.response, /^250 /);
    await t.stop();
  });

  const count = async () => (await smtpEmails(t)).length;
  const fresh = async () => {
    session?.close();
    session = await openSession(t, { token: t.apiKey });
    return session;
  };

  it('answers commands out of order with 503 5.5.1 and unknown ones with 500 5.5.2', async () => {
    const raw = await RawSession.connect(starttlsPort(t));
    assert.match(await raw.reply(), /^220 /);
    assert.match(await raw.command('MAIL FROM:<a@sender.test>'), /^503 5\.5\.1 .*HELO\/EHLO first/);
    assert.match(await raw.command('EHLO client.test'), /^250/);
    assert.match(await raw.command('RCPT TO:<x@example.net>'), /^503 5\.5\.1 .*need MAIL/);
    assert.match(await raw.command('DATA'), /^503 5\.5\.1 .*need RCPT/);
    assert.match(await raw.command('MAIL FROM:<a@sender.test>'), /^250 /);
    assert.match(await raw.command('MAIL FROM:<b@sender.test>'), /^503 5\.5\.1 .*nested MAIL/);
    assert.match(await raw.command('FROBNICATE'), /^500 5\.5\.2 /);
    // smtp-server's sendmail jokes are not Postline's: WIZ with any password answered `200 Please pass, oh mighty wizard`.
    for (const joke of ['WIZ secret', 'SHELL', 'KILL']) assert.match(await raw.command(joke), /^500 5\.5\.2 Error: command not recognized$/);
    assert.match(await raw.command('MAIL FROM:not-in-brackets'), /^501 5\.1\.7 /);
    raw.close();
  });

  it('handles a pipelined transaction, and a flood of pipelined commands without holding up others', async () => {
    const s = await fresh();
    s.write(`MAIL FROM:<hello@${SENDER_DOMAIN}>\r\nRCPT TO:<p1@example.net>\r\nRCPT TO:<p2@example.net>\r\nDATA\r\n`);
    for (const expected of [/^250 /, /^250 /, /^250 /, /^354 /]) assert.match(await s.reply(), expected);
    s.write(`${message({ From: FROM, To: 'p1@example.net, p2@example.net', Subject: 'Pipelined' })}.\r\n`);
    assert.match(await s.reply(), /^250 2\.0\.0 Ok: queued as /);

    const flood = await openSession(t, { token: t.apiKey });
    flood.write('NOOP\r\n'.repeat(50_000)); // never reading the replies
    const started = Date.now();
    const info = await transport(t).sendMail({ from: FROM, to: 'other@example.net', subject: 'Meanwhile', text: 'x' });
    assert.match(info.response, /^250 /);
    assert.ok(Date.now() - started < 5000);
    flood.close();
    flood.close();
  });

  it('keeps an 8-bit body byte for byte, and refuses SMTPUTF8 and non-ASCII addresses', async () => {
    const s = await fresh();
    const body = Buffer.from('Grüße, ünïcödé ✓\r\n', 'utf8');
    const data = Buffer.concat([
      Buffer.from(`From: ${FROM}\r\nTo: u8@example.net\r\nSubject: 8bit\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n`),
      body,
    ]);
    assert.match(await s.command(`MAIL FROM:<hello@${SENDER_DOMAIN}> BODY=8BITMIME`), /^250 /);
    assert.match(await s.command('RCPT TO:<u8@example.net>'), /^250 /);
    assert.match(await s.command('DATA'), /^354 /);
    s.write(data);
    s.write('.\r\n');
    const reply = await s.reply();
    assert.match(reply, /^250 /);
    const id = /queued as (\S+)/.exec(reply)![1]!;
    assert.ok((await storedMessage(t, id)).includes(body));
    const { data: shown } = await t.resend.emails.get(id);
    assert.equal(shown!.text!.trim(), 'Grüße, ünïcödé ✓', 'decoded from the stored message');

    assert.match(await s.command(`MAIL FROM:<hello@${SENDER_DOMAIN}> SMTPUTF8`), /^555 5\.5\.4 SMTPUTF8 is not supported/);
    // The refusals quote the address, in US-ASCII as every reply text must be (RFC 5321 4.2).
    assert.equal(await s.command('MAIL FROM:<grüße@sender.test>'), '553 5.6.7 <gr??e@sender.test>: non-ASCII addresses are not supported');
    assert.match(await s.command(`MAIL FROM:<hello@${SENDER_DOMAIN}>`), /^250 /);
    assert.equal(await s.command('RCPT TO:<ünï@example.net>'), '553 5.6.7 <?n?@example.net>: non-ASCII addresses are not supported');
    s.write(Buffer.from('RCPT TO:<\xfc@example.net>\r\n', 'latin1')); // not even UTF-8
    assert.equal(await s.reply(), '553 5.6.7 <?@example.net>: non-ASCII addresses are not supported');
  });

  it('refuses raw 8-bit header fields with 554 5.6.9 (SMTPUTF8 is not offered), storing nothing; RFC 2047 words pass', async () => {
    const s = await fresh();
    assert.doesNotMatch(await s.command('EHLO client.test'), /SMTPUTF8/, 'not offered');
    const before = await count();
    for (const header of ['Subject: Grüße', `From: Jürgen <hello@${SENDER_DOMAIN}>`]) {
      const raw = Buffer.from(`${header.startsWith('From') ? '' : `From: ${FROM}\r\n`}To: h8@example.net\r\n${header}\r\n\r\nHello\r\n`, 'utf8');
      const line = raw.toString('utf8').split('\r\n').indexOf(header) + 1;
      assert.match(await s.command(`MAIL FROM:<hello@${SENDER_DOMAIN}> BODY=8BITMIME`), /^250 /);
      assert.match(await s.command('RCPT TO:<h8@example.net>'), /^250 /);
      assert.match(await s.command('DATA'), /^354 /);
      s.write(raw);
      s.write('.\r\n');
      assert.equal(
        await s.reply(),
        `554 5.6.9 Line ${line}: raw 8-bit bytes in a header field need SMTPUTF8, which this server does not offer: encode non-ASCII text as RFC 2047 encoded-words`,
      );
    }
    assert.equal(await count(), before, 'nothing stored');
    const encoded = await sendRaw(s, ['h8@example.net'], message({ From: FROM, To: 'h8@example.net', Subject: '=?UTF-8?Q?Gr=C3=BC=C3=9Fe?=' }));
    assert.match(encoded, /^250 /);
    const id = /queued as (\S+)/.exec(encoded)![1]!;
    assert.equal((await t.resend.emails.get(id)).data!.subject, 'Grüße');
  });

  it('refuses a line over 998 characters with 550 5.6.0, storing nothing', async () => {
    const s = await fresh();
    const before = await count();
    const reply = await sendRaw(s, ['long@example.net'], message({ From: FROM, To: 'long@example.net', Subject: 'Long' }, `short\r\n${'x'.repeat(999)}\r\n`));
    assert.match(reply, /^550 5\.6\.0 Line 6 is longer than 998 characters/);
    assert.equal(await count(), before);
    assert.match(
      await sendRaw(s, ['long@example.net'], message({ From: FROM, To: 'long@example.net', Subject: 'Just fits' }, `${'x'.repeat(998)}\r\n`)),
      /^250 /,
    );
  });

  it('refuses a missing, doubled or malformed From', async () => {
    const s = await fresh();
    const before = await count();
    const cases: [string, RegExp][] = [
      [message({ To: 'f@example.net', Subject: 'No From' }), /^550 5\.6\.0 The message has no From header$/],
      [`From: ${FROM}\r\n${message({ From: FROM, To: 'f@example.net', Subject: 'Two' })}`, /^550 5\.6\.0 .*more than one From/],
      [message({ From: 'not an address', To: 'f@example.net', Subject: 'Bad' }), /^550 5\.1\.7 Bad From header/],
      [
        message({ From: `a@${SENDER_DOMAIN}, b@${SENDER_DOMAIN}`, To: 'f@example.net', Subject: 'Two in one' }),
        /^550 5\.1\.7 Bad From header: it must hold exactly one address/,
      ],
      [message({ From: 'Bad <a@b>', To: 'f@example.net', Subject: 'No TLD' }), /^550 5\.1\.7 /],
      [`From: ${FROM}\r\nX-Bad: a\0b\r\nSubject: NUL\r\n\r\nbody\r\n`, /^550 5\.6\.0 The message header contains a NUL/],
    ];
    for (const [data, expected] of cases) {
      assert.match(await sendRaw(s, ['f@example.net'], data), expected);
    }
    assert.equal(await count(), before);
  });

  it('refuses the 51st recipient with 452 4.5.3 and a bad address with 553 5.1.3', async () => {
    const s = await fresh();
    assert.match(await s.command(`MAIL FROM:<hello@${SENDER_DOMAIN}>`), /^250 /);
    for (let i = 0; i < 50; i++) assert.match(await s.command(`RCPT TO:<r${i}@example.net>`), /^250 /);
    assert.match(await s.command('RCPT TO:<r0@example.net>'), /^250 /, 'a repeated recipient is not another one');
    assert.match(await s.command('RCPT TO:<r50@example.net>'), /^452 4\.5\.3 Too many recipients: at most 50/);
    assert.match(await s.command('RSET'), /^250 /);
    assert.match(await s.command(`MAIL FROM:<hello@${SENDER_DOMAIN}>`), /^250 /);
    assert.match(await s.command('RCPT TO:<user@localhost>'), /^553 5\.1\.3 /);
  });

  it('refuses more than 40 MB at MAIL FROM SIZE= and at the end of DATA', async () => {
    const s = await fresh();
    assert.match(await s.command(`MAIL FROM:<hello@${SENDER_DOMAIN}> SIZE=${41 * 1024 * 1024}`), /^552 5\.3\.4 /);
    const before = await count();
    const chunk = `${'y'.repeat(76)}\r\n`.repeat(13_000); // ~1 MB
    assert.match(await s.command(`MAIL FROM:<hello@${SENDER_DOMAIN}>`), /^250 /);
    assert.match(await s.command('RCPT TO:<big@example.net>'), /^250 /);
    assert.match(await s.command('DATA'), /^354 /);
    s.write(message({ From: FROM, To: 'big@example.net', Subject: 'Too big' }, ''));
    for (let i = 0; i < 42; i++) s.write(chunk);
    s.write('.\r\n');
    assert.match(await s.reply(30_000), /^552 5\.3\.4 Message size exceeds the limit/);
    assert.equal(await count(), before);
    assert.match(await sendRaw(s, ['small@example.net'], message({ From: FROM, To: 'small@example.net', Subject: 'Small after big' })), /^250 /);
  });

  it('stores nothing when the client disconnects in the middle of DATA', async () => {
    const s = await fresh();
    const before = await count();
    assert.match(await s.command(`MAIL FROM:<hello@${SENDER_DOMAIN}>`), /^250 /);
    assert.match(await s.command('RCPT TO:<gone@example.net>'), /^250 /);
    assert.match(await s.command('DATA'), /^354 /);
    s.hangUp(message({ From: FROM, To: 'gone@example.net', Subject: 'Half' }, 'first half of the body\r\n'));
    // No session left open: the server has seen the client go (it decides then, with the message unfinished).
    await eventually(async () => /^postline_smtp_sessions_open 0$/m.test(await (await fetch(`${t.url}/metrics`)).text()), 10_000, 'no SMTP session open');
    assert.equal(await count(), before);
  });

  it('accepts a message without a body and one with bare LF line ends, stored with CRLF and signed', async () => {
    const s = await fresh();
    const headersOnly = await sendRaw(s, ['nobody@example.net'], `From: ${FROM}\r\nTo: nobody@example.net\r\nSubject: Headers only\r\n`);
    assert.match(headersOnly, /^250 /);
    const bare = await storedMessage(t, /queued as (\S+)/.exec(headersOnly)![1]!);
    assert.match(bare.toString(), /^Date: .+ \+0000\r$/m, 'a Date is added when the client gave none');
    assert.ok(bare.toString().endsWith('Subject: Headers only\r\n\r\n'));
    const reply = await sendRaw(s, ['lf@example.net'], `From: ${FROM}\nTo: lf@example.net\nSubject: Bare LF\n\nline one\nline two\n`);
    assert.match(reply, /^250 /);
    assert.doesNotMatch((await storedMessage(t, /queued as (\S+)/.exec(reply)![1]!)).toString('latin1'), /[^\r]\n/);
    const delivered = await eventually(async () => t.sink.messages.find((m) => m.to.includes('lf@example.net')));
    assert.deepEqual(await verifyDkim(t, delivered.raw), [{ result: 'pass', domain: SENDER_DOMAIN }]);
  });
});
