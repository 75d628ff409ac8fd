// POSTLINE_SMTP_MAX_CONNECTIONS: a connection past the limit on a port is told 421 and closed;
// once one of the open ones leaves, a new client is greeted again.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.js';
import type { TestPostline } from '../support/postline.js';
import { RawSession } from '../support/smtp-session.js';
import { startSmtpTest, starttlsPort } from './support.js';

describe('SMTP: POSTLINE_SMTP_MAX_CONNECTIONS bounds open connections per port', () => {
  let t: TestPostline;
  before(async () => {
    // The per-address limit stays above it: every client here comes from 127.0.0.1.
    t = await startSmtpTest({ POSTLINE_SMTP_MAX_CONNECTIONS: '2', POSTLINE_SMTP_MAX_CONNECTIONS_PER_IP: '10' });
  });
  after(() => t.stop());

  it('greets two clients, tells the third 421 and closes it, and greets a new one once a place is free', async () => {
    const first = await RawSession.greeted(starttlsPort(t));
    const second = await RawSession.greeted(starttlsPort(t));
    const third = await RawSession.connect(starttlsPort(t));
    assert.match(await third.reply(), /^421 4\.7\.0 .*Too many connected clients/);
    await third.closed;
    // The two open sessions still work.
    assert.match(await first.command('EHLO client.test'), /^250/);
    assert.match(await second.command('NOOP'), /^250/);

    first.close();
    const next = await eventually(
      async () => {
        const session = await RawSession.connect(starttlsPort(t));
        const greeting = await session.reply();
        if (greeting.startsWith('220 ')) return session;
        session.close();
        return undefined;
      },
      10_000,
      'a place freed by the closed session',
    );
    assert.match(await next.command('EHLO client.test'), /^250/);
    next.close();
    second.close();
  });
});
