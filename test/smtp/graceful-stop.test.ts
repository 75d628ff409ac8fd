// Stopping with SMTP sessions open: new sessions are told to come back later (421 4.3.2)
// while the listener still answers, a session in the middle of a message finishes it and gets
// its 250 (the email is stored), and stop() ends as soon as the last session has quit. A
// session that outlasts its third of POSTLINE_SHUTDOWN_TIMEOUT gets 421 and is closed.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { FROM, message, openSession, queuedId, RawSession, smtpEmails, startSmtpTest, starttlsPort } from './support.js';

describe('SMTP: a graceful stop', () => {
  const started: TestPostline[] = [];
  after(async () => {
    for (const t of started) await t.stop();
  });
  const start = async (env: Record<string, string>) => {
    const t = await startSmtpTest(env);
    started.push(t);
    return t;
  };

  it('refuses new sessions with 421, lets an open one finish its message, and stops when it quits', async () => {
    const t = await start({ POSTLINE_SHUTDOWN_TIMEOUT: '60s' });
    const session = await openSession(t, { token: t.apiKey });
    assert.match(await session.command(`MAIL FROM:<hello@sender.test>`), /^250/);
    assert.match(await session.command('RCPT TO:<late@example.net>'), /^250/);
    assert.match(await session.command('DATA'), /^354/);

    const stopped = t.postline.stop();
    const newcomer = await RawSession.connect(starttlsPort(t));
    assert.equal(await newcomer.reply(), '421 4.3.2 Server shutting down, try again later');
    await newcomer.closed;

    session.write(message({ From: FROM, To: 'late@example.net', Subject: 'Sent while stopping' }));
    session.write('.\r\n');
    const queued = await session.reply();
    assert.match(queued, /^250 /);
    const [row] = await smtpEmails(t); // committed before its 250
    assert.equal(row.id, queuedId(queued));
    assert.match(await session.command('QUIT'), /^221/);
    const started = Date.now();
    await stopped;
    assert.ok(Date.now() - started < 5_000, 'stopped soon after the last session quit, not after the grace');
  });

  it('closes a session that outlasts its share of POSTLINE_SHUTDOWN_TIMEOUT with 421', async () => {
    const t = await start({ POSTLINE_SHUTDOWN_TIMEOUT: '3s' });
    const idle = await openSession(t, { token: t.apiKey });
    const started = Date.now();
    await t.postline.stop();
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 900 && elapsed < 5_000, `stopped after ${elapsed} ms (a 1 s share, then smtp-server's 1 s)`);
    assert.match(await idle.reply(), /^421 /);
    await idle.closed;
  });
});
