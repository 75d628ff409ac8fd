// Each message submitted over SMTP counts against the account's rate limit, the same counter
// as its API requests: over it, MAIL FROM is answered 451 4.7.1 (the client retries later)
// and the refusal shows in /logs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestPostline } from '../support/postline.js';
import { inOneWindow } from '../support/rate-window.js';
import { FROM, message, openSession, sendRaw, startSmtpTest } from './support.js';

const LIMIT = 3;

describe('SMTP and the account rate limit', () => {
  let t: TestPostline;
  before(async () => {
    t = await startSmtpTest({ POSTLINE_RATE_LIMIT: String(LIMIT) });
  });
  after(() => t.stop());

  it('refuses the message over the limit with 451 4.7.1, counting API requests too', async () => {
    const session = await openSession(t, { token: t.apiKey });
    const replies = await inOneWindow(async () => {
      const api = await t.resend.emails.list(); // one of the LIMIT requests in this second
      assert.equal(api.error, null);
      const got: string[] = [];
      for (let i = 0; i < LIMIT; i++) {
        got.push(await sendRaw(session, ['limit@example.net'], message({ From: FROM, To: 'limit@example.net', Subject: `Limited ${i}` })));
        await session.command('RSET');
      }
      return got;
    });
    assert.match(replies[0]!, /^250 /);
    assert.match(replies[1]!, /^250 /);
    assert.match(replies[2]!, /^451 4\.7\.1 Rate limit exceeded/);
    // The session goes on: the next second has room again (waiting for the clock).
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
    await session.command('RSET');
    assert.match(await sendRaw(session, ['limit@example.net'], message({ From: FROM, To: 'limit@example.net', Subject: 'Later' })), /^250 /);
    session.close();

    const logs = await t.resend.logs.list({ limit: 100 });
    assert.ok(logs.data!.data.some((l) => l.method === 'SMTP' && l.response_status === 451));
  });
});
