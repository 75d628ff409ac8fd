import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { loadConfig, ConfigError } from '../../src/config.js';
import { eventsOf, waitForLastEvent } from '../delivery/support.js';
import { createVerifiedDomain } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { alteredSignature } from '../support/altered-signature.js';

const PUBLIC_URL = 'https://mail.postline.test';

describe('tracking: HEAD records nothing, a trusted proxy gives the client address, public links are throttled per address', () => {
  let t: TestPostline;
  let emailId: string;
  let pixel: string;
  let link: string;

  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_PUBLIC_URL: PUBLIC_URL } });
    const domain = await createVerifiedDomain(t, 'sender.test');
    await t.resend.domains.update({ id: domain.id, openTracking: true, clickTracking: true });
    t.dns.set('example.org', { MX: [{ exchange: 'mx.example.org', priority: 10 }] });
    t.dns.set('mx.example.org', { A: ['127.0.0.1'] });
    const sent = await t.resend.emails.send({
      from: 'hello@sender.test',
      to: 'ann@example.org',
      subject: 'Tracked',
      html: '<p><a href="https://acme.test/pricing">Pricing</a></p>',
    });
    emailId = sent.data!.id;
    await waitForLastEvent(t, emailId, 'delivered');
    const html = (await PostalMime.parse(t.sink.messages.find((m) => m.to.includes('ann@example.org'))!.raw)).html!;
    pixel = /<img src="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    link = /href="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
  });
  after(() => t.stop());

  const visit = (url: string, init: RequestInit = {}) => fetch(t.url + url.slice(PUBLIC_URL.length), { redirect: 'manual', ...init });
  const engagements = async () => (await eventsOf(t, emailId)).filter((e) => e.type === 'email.opened' || e.type === 'email.clicked');

  it('answers HEAD on the pixel and on a link as GET would, without recording an open or a click', async () => {
    const head = await visit(pixel, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-type'), 'image/gif');
    assert.match(head.headers.get('cache-control')!, /no-store/);
    const headClick = await visit(link, { method: 'HEAD' });
    assert.equal(headClick.status, 302);
    assert.equal(headClick.headers.get('location'), 'https://acme.test/pricing');
    assert.deepEqual(await engagements(), []);
    assert.equal((await t.resend.emails.get(emailId)).data!.last_event, 'delivered');
    // A forged one is still a 404 to HEAD.
    assert.equal((await visit(alteredSignature(pixel), { method: 'HEAD' })).status, 404);
    // GET still counts.
    assert.equal((await visit(pixel)).status, 200);
    assert.deepEqual(
      (await engagements()).map((e) => e.type),
      ['email.opened'],
    );
  });

  it('ignores X-Forwarded-For unless the proxy is trusted (POSTLINE_TRUST_PROXY)', async () => {
    const click = async () => {
      const res = await visit(link, { headers: { 'x-forwarded-for': '203.0.113.7', 'user-agent': 'Browser/2.0' } });
      assert.equal(res.status, 302);
      return (await engagements()).filter((e) => e.type === 'email.clicked').at(-1)!.data.click.ipAddress;
    };
    assert.match(await click(), /127\.0\.0\.1/, 'a client cannot choose its address');
    await t.restart({ POSTLINE_TRUST_PROXY: '127.0.0.1' });
    assert.equal(await click(), '203.0.113.7');
    await t.restart({ POSTLINE_TRUST_PROXY: 'loopback' });
    assert.equal(await click(), '203.0.113.7');
    await t.restart({ POSTLINE_TRUST_PROXY: '10.0.0.0/8' }); // another proxy: not this client
    assert.match(await click(), /127\.0\.0\.1/);
  });

  it('reads POSTLINE_TRUST_PROXY as false, true, hops, or addresses and ranges', () => {
    const trust = (value?: string) => loadConfig(value === undefined ? {} : { POSTLINE_TRUST_PROXY: value }).trustProxy;
    assert.equal(trust(), false);
    assert.equal(trust('false'), false);
    assert.equal(trust('true'), true);
    assert.equal(trust('2'), 2);
    assert.equal(trust('127.0.0.1, 10.0.0.0/8,::1'), '127.0.0.1,10.0.0.0/8,::1');
    assert.equal(trust('loopback,uniquelocal'), 'loopback,uniquelocal');
    assert.throws(() => trust('proxy.example.com'), ConfigError);
  });

  it('throttles the public links per client address (429 with Retry-After), recording only what it answered', async () => {
    await t.restart({ POSTLINE_PUBLIC_RATE_LIMIT: '3', POSTLINE_TRUST_PROXY: '' });
    const before = (await engagements()).length;
    const answers = await Promise.all(Array.from({ length: 30 }, () => visit(pixel)));
    const statuses = answers.map((r) => r.status);
    const limited = answers.filter((r) => r.status === 429);
    assert.ok(limited.length > 0, `no 429 in ${statuses}`);
    assert.ok(
      statuses.every((s) => s === 200 || s === 429),
      String(statuses),
    );
    const body = await limited[0]!.json();
    assert.equal(body.name, 'rate_limit_exceeded');
    assert.ok(Number(limited[0]!.headers.get('retry-after')) >= 1);
    assert.equal(limited[0]!.headers.get('ratelimit-limit'), '3');
    assert.equal((await engagements()).length - before, statuses.filter((s) => s === 200).length);
    // The API's own budget is not the links': an authenticated request still goes through.
    assert.equal((await t.resend.emails.get(emailId)).error, null);
  });
});
