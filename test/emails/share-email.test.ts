import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { urlSigner } from '../../src/signed-urls/url-signing.js';
import { createVerifiedDomain } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';

describe('POST /emails/:id/share (emails.share): a signed, expiring, read-only page of one email', () => {
  let t: TestPostline;
  let id: string;
  before(async () => {
    t = await startTestPostline();
    await createVerifiedDomain(t, 'acme.test');
    const sent = await t.resend.emails.send({
      from: 'Acme <hello@acme.test>',
      to: 'ann@example.org',
      subject: 'Your <order> & more',
      html: '<p>Thanks!</p><script>parent.stolen = 1</script><img src="https://tracker.example/p.gif">',
    });
    id = sent.data!.id;
  });
  after(() => t.stop());

  /** The shared URL on this test's server (the link names POSTLINE_PUBLIC_URL). */
  const local = (url: string) => t.url + new URL(url).pathname + new URL(url).search;

  it('answers a link that opens without a key: the envelope escaped, the body framed under a sandboxing policy', async () => {
    const { data, error } = await t.resend.emails.share(id);
    assert.equal(error, null);
    assert.equal(data!.object, 'email');
    assert.equal(data!.id, id);
    const expires = Number(new URL(data!.url).searchParams.get('expires'));
    assert.ok(Math.abs(expires * 1000 - (Date.now() + 48 * 3600_000)) < 60_000, 'expires in 48 hours by default');

    const page = await fetch(local(data!.url));
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    const html = await page.text();
    assert.ok(html.includes('Your &lt;order&gt; &amp; more'), 'the subject, escaped');
    assert.ok(!html.includes('<script>'));
    const frame = /<iframe sandbox title="Message" src="([^"]+)"/.exec(html);
    assert.ok(frame, 'the body is in a sandboxed frame');

    const body = await fetch(t.url + frame[1]!.replaceAll('&amp;', '&'));
    assert.equal(body.status, 200);
    const policy = body.headers.get('content-security-policy')!;
    assert.match(policy, /^sandbox; default-src 'none'/);
    assert.ok(!policy.includes('https:'), 'no remote content');
    assert.ok((await body.text()).includes('<p>Thanks!</p>'));
  });

  it('takes expires_in, refuses a malformed one, and refuses a link once it has expired', async () => {
    const twoHours = await t.resend.emails.share(id, { expiresIn: '2 hours' });
    const expires = Number(new URL(twoHours.data!.url).searchParams.get('expires'));
    assert.ok(Math.abs(expires * 1000 - (Date.now() + 2 * 3600_000)) < 60_000);
    for (const bad of ['soon', '0 minutes', '31 days', '2 fortnights']) {
      const { error } = await t.resend.emails.share(id, { expiresIn: bad });
      assert.equal(error?.statusCode, 422, bad);
      assert.equal(error?.name, 'validation_error');
    }
    const { data } = await t.resend.emails.share(id, { expiresIn: '1 minute' });
    // An expiry in the past, signed by the server, is the state a minute later: sign one through the same signer.
    const past = String(Math.floor(Date.now() / 1000) - 1);
    const url = new URL(local(data!.url));
    url.searchParams.set('expires', past);
    url.searchParams.set('signature', (await urlSigner(t.postline.db, 'email-share')).sign('share', id, past));
    const expired = await fetch(url);
    assert.equal(expired.status, 403);
    assert.equal((await expired.json()).name, 'validation_error');
  });

  it('refuses a tampered link as not found', async () => {
    const { data } = await t.resend.emails.share(id);
    const url = new URL(local(data!.url));
    url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const later = await fetch(url);
    assert.equal(later.status, 404);
    assert.deepEqual(await later.json(), { statusCode: 404, message: 'Email not found', name: 'not_found' });
    const other = await t.resend.emails.send({ from: 'hello@acme.test', to: 'bob@example.org', subject: 'Other', html: '<p>Other</p>' });
    const swapped = new URL(local(data!.url).replace(id, other.data!.id));
    assert.equal((await fetch(swapped)).status, 404);
    const body = new URL(local(data!.url));
    body.pathname += '/body';
    body.searchParams.set('signature', 'A'.repeat(22));
    assert.equal((await fetch(body)).status, 404);
  });

  it("answers 404 for another account's email, and refuses unknown fields", async () => {
    const stranger = await createAccount(t.postline.db, 'stranger');
    const { error } = await new Resend(stranger.token, { baseUrl: t.url }).emails.share(id);
    assert.deepEqual(error, { statusCode: 404, message: 'Email not found', name: 'not_found' });
    const unknown = await fetch(`${t.url}/emails/${id}/share`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ expires: '2 hours' }),
    });
    assert.equal(unknown.status, 422);
  });
});
