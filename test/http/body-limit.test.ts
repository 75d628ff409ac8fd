// POSTLINE_BODY_LIMIT: a request body past it is refused whole with Resend's error body (413),
// one within it is read as usual.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const LIMIT = 4096;

describe('http: POSTLINE_BODY_LIMIT bounds what the API reads', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_BODY_LIMIT: String(LIMIT) } });
    await createVerifiedDomain(t, 'acme.test');
  });
  after(() => t.stop());

  const email = (htmlBytes: number) => ({ from: 'hello@acme.test', to: 'someone@resend.dev', subject: 'Sized', html: `<p>${'x'.repeat(htmlBytes)}</p>` });

  /** An email whose JSON request body is exactly `bytes` long. */
  const sized = (bytes: number) => email(bytes - JSON.stringify(email(0)).length);

  it('sends an email whose request body is exactly the limit', async () => {
    const body = sized(LIMIT);
    assert.equal(JSON.stringify(body).length, LIMIT);
    const res = await rawRequest(t, 'POST', '/emails', { body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  it('refuses a request one byte past the limit with 413, and records no email', async () => {
    const before = (await t.sql('SELECT count(*)::int AS n FROM emails'))[0].n;
    const body = sized(LIMIT + 1);
    assert.equal(JSON.stringify(body).length, LIMIT + 1);
    const res = await rawRequest(t, 'POST', '/emails', { body });
    assert.equal(res.status, 413);
    assert.deepEqual(res.body, { statusCode: 413, message: `The request body is larger than ${LIMIT} bytes.`, name: 'validation_error' });
    assert.equal((await t.sql('SELECT count(*)::int AS n FROM emails'))[0].n, before);
    // Through the SDK too.
    const viaSdk = await t.resend.emails.send(body);
    assert.equal(viaSdk.error?.statusCode, 413);
  });
});
