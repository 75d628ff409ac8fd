// Slowloris and hogging: an idle session is closed after POSTLINE_SMTP_TIMEOUT, a message
// trickled in slower than POSTLINE_SMTP_DATA_TIMEOUT allows is cut off (and not stored), a
// half-done TLS handshake holds no slot and is dropped once quiet, one address may only open
// POSTLINE_SMTP_MAX_CONNECTIONS_PER_IP connections, and messages beyond POSTLINE_SMTP_MEMORY_MB
// in memory are deferred. Others are served meanwhile.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { eventually, within } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { FROM, implicitPort, message, openSession, RawSession, sendRaw, SENDER_DOMAIN, smtpEmails, startSmtpTest, starttlsPort, transport } from './support.js';

describe('SMTP: slow and greedy clients', () => {
  let t: TestPostline;
  before(async () => {
    t = await startSmtpTest({
      POSTLINE_SMTP_TIMEOUT: '1s',
      POSTLINE_SMTP_DATA_TIMEOUT: '2s',
      POSTLINE_SMTP_MAX_CONNECTIONS_PER_IP: '4',
      POSTLINE_SMTP_MEMORY_MB: '2',
    });
  });
  after(() => t.stop());

  /** Until every session has closed (smtp-server gives a slot back on its next turn). */
  async function untilNoSessionIsOpen(): Promise<void> {
    await eventually(async () => /^postline_smtp_sessions_open 0$/m.test(await (await fetch(`${t.url}/metrics`)).text()), 5_000, 'no SMTP session open');
  }

  it('closes a session that goes quiet, with 421 4.4.2', async () => {
    const session = await RawSession.connect(starttlsPort(t));
    assert.match(await session.reply(), /^220 /);
    session.write('EHLO half-a-comm'); // no line end, then nothing
    const started = Date.now();
    assert.match(await session.reply(5000), /^421 4\.4\.2 /);
    await session.closed;
    assert.ok(Date.now() - started < 4000);
  });

  it('a half-done TLS handshake holds no slot, and is dropped once it goes quiet', async () => {
    // A ClientHello record header announcing 512 bytes, then one byte at a time: TLS waits for
    // the whole record, and each byte keeps the connection from going idle, so the handshake
    // stays half-done for as long as the test wants.
    const socket = net.connect({ host: '127.0.0.1', port: implicitPort(t) });
    socket.on('error', () => {});
    await within(new Promise<void>((resolve) => socket.once('connect', () => resolve())), 10_000, 'a connection to the implicit-TLS port');
    let closedAt = 0;
    const closed = new Promise<void>((resolve) => socket.once('close', () => ((closedAt = Date.now()), resolve())));
    socket.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]));
    const trickle = setInterval(() => socket.write(Buffer.from([0x01])), 250); // under the 1 s idle timeout
    try {
      // The address may hold 4 connections: all 4 are served beside the half-done handshake.
      const sessions = await Promise.all([0, 1, 2, 3].map(() => RawSession.connect(starttlsPort(t))));
      const greetings = await Promise.all(sessions.map((s) => s.reply()));
      for (const s of sessions) s.close();
      await Promise.all(sessions.map((s) => s.closed));
      assert.equal(closedAt, 0, 'the half-done handshake was already dropped, so it proved nothing');
      for (const greeting of greetings) assert.match(greeting, /^220 /);
    } finally {
      clearInterval(trickle);
    }
    const quietSince = Date.now();
    await within(closed, 10_000, 'the server to drop the quiet half-done handshake');
    assert.ok(closedAt - quietSince < 4000, `dropped ${closedAt - quietSince} ms after going quiet (timeout 1 s)`);
    await untilNoSessionIsOpen(); // the four sessions' slots are given back on smtp-server's next turn
  });

  it('cuts off a message trickled in too slowly, and stores nothing', async () => {
    const before = (await smtpEmails(t)).length;
    const session = await openSession(t, { token: t.apiKey });
    assert.match(await session.command(`MAIL FROM:<hello@${SENDER_DOMAIN}>`), /^250 /);
    assert.match(await session.command('RCPT TO:<slow@example.net>'), /^250 /);
    assert.match(await session.command('DATA'), /^354 /);
    const data = message({ From: FROM, To: 'slow@example.net', Subject: 'Trickle' }, 'x'.repeat(200));
    let i = 0;
    const trickle = setInterval(() => session.write(data[i++ % data.length]!), 300); // always under the idle timeout
    try {
      assert.match(await session.reply(6000), /^421 4\.4\.2 Timeout while receiving the message/);
      await session.closed;
    } finally {
      clearInterval(trickle);
    }
    assert.equal((await smtpEmails(t)).length, before);
  });

  it('limits the connections one address holds, and frees the slot when one closes', async () => {
    const held = await Promise.all([0, 1, 2, 3].map(() => RawSession.connect(starttlsPort(t))));
    for (const s of held) assert.match(await s.reply(), /^220 /);
    const fifth = await RawSession.connect(starttlsPort(t));
    assert.match(await fifth.reply(), /^421 4\.7\.0 Too many connections from your address/);
    await fifth.closed;
    held[0]!.close();
    await held[0]!.closed;
    // smtp-server reports a close on its next turn: the freed slot is taken once it has.
    const info = await eventually(
      () => transport(t).sendMail({ from: FROM, to: 'free@example.net', subject: 'Slot freed', text: 'x' }),
      5_000,
      'the freed slot',
    );
    assert.match(info.response, /^250 /);
    for (const s of held) s.close();
    await Promise.all(held.map((s) => s.closed));
    await untilNoSessionIsOpen();
  });

  it('defers a message that would take more than the memory budget with 452 4.3.1, and takes the next one', async () => {
    const session = await openSession(t, { token: t.apiKey });
    const big = message({ From: FROM, To: 'mem@example.net', Subject: 'Over the budget' }, `${'z'.repeat(76)}\r\n`.repeat(30_000)); // ~2.3 MB
    assert.match(await sendRaw(session, ['mem@example.net'], big), /^452 4\.3\.1 Insufficient system storage/);
    assert.match(await sendRaw(session, ['mem@example.net'], message({ From: FROM, To: 'mem@example.net', Subject: 'Small' })), /^250 /);
    session.close();
  });
});
