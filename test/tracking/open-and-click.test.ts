import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { createVerifiedDomain } from '../support/domains.js';
import { verifyDkim, eventsOf, waitForLastEvent } from '../delivery/support.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { alteredSignature } from '../support/altered-signature.js';

const PUBLIC_URL = 'https://mail.postline.test';
const HTML = [
  '<html><body>',
  '<p><a href="https://acme.test/pricing?plan=pro&amp;ref=mail">Pricing</a></p>',
  "<p><a class='x' href='http://acme.test/docs#start' title=\"a > b\">Docs</a></p>",
  '<p><a href=https://acme.test/bare>Bare</a> <a href="mailto:help@acme.test">Mail us</a> <a href="#top">Top</a></p>',
  '<p><a href="https://acme.test/ünïcode path">Unicode</a></p>',
  '</body></html>',
].join('\n');

describe('tracking: open pixel and click redirects, signed', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_PUBLIC_URL: PUBLIC_URL } });
    const tracked = await createVerifiedDomain(t, 'sender.test');
    const updated = await t.resend.domains.update({ id: tracked.id, openTracking: true, clickTracking: true });
    assert.equal(updated.error, null, JSON.stringify(updated.error));
    await createVerifiedDomain(t, 'plain.test');
    t.dns.set('example.org', { MX: [{ exchange: 'mx.example.org', priority: 10 }] });
    t.dns.set('mx.example.org', { A: ['127.0.0.1'] });
  });
  after(() => t.stop());

  async function deliveredTo(to: string) {
    for (let i = 0; i < 300; i++) {
      const message = t.sink.messages.find((m) => m.to.includes(to));
      if (message) return message;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nothing arrived for ${to}`);
  }

  /** A tracking URL (on POSTLINE_PUBLIC_URL) requested from this Postline, like a mail client would. */
  function visit(url: string, init: RequestInit = {}) {
    assert.ok(url.startsWith(`${PUBLIC_URL}/t/`), url);
    return fetch(t.url + url.slice(PUBLIC_URL.length), { redirect: 'manual', ...init });
  }

  let emailId: string;
  let pixel: string;
  let links: string[];

  it('adds a pixel and rewrites http(s) links in the html before signing; text and stored html stay as sent', async () => {
    const sent = await t.resend.emails.send({ from: 'hello@sender.test', to: 'ann@example.org', subject: 'Tracked', html: HTML });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    emailId = sent.data!.id;
    const message = await deliveredTo('ann@example.org');
    assert.deepEqual(await verifyDkim(t, message.raw), [{ result: 'pass', domain: 'sender.test' }]);
    const parsed = await PostalMime.parse(message.raw);
    const html = parsed.html!;
    pixel = /<img src="([^"]+)" width="1" height="1"/.exec(html)![1]!.replace(/&amp;/g, '&');
    assert.match(pixel, new RegExp(`^${PUBLIC_URL}/t/o/${emailId}/[A-Za-z0-9_-]{22}$`));
    assert.ok(html.indexOf(pixel) < html.indexOf('</body>'), 'the pixel sits inside the body');
    links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
    const tracked = links.filter((l) => l.startsWith(`${PUBLIC_URL}/t/c/`));
    assert.equal(tracked.length, 4);
    assert.deepEqual(
      tracked.map((l) => new URL(l).searchParams.get('url')),
      ['https://acme.test/pricing?plan=pro&ref=mail', 'http://acme.test/docs#start', 'https://acme.test/bare', 'https://acme.test/%C3%BCn%C3%AFcode%20path'],
    );
    assert.ok(links.includes('mailto:help@acme.test') && links.includes('#top'), 'mailto: and anchors are left alone');
    assert.match(html, /class='x' href="https:\/\/mail\.postline\.test\/t\/c\/[^"]+" title="a > b"/);
    assert.doesNotMatch(parsed.text!, /\/t\/c\//, 'the text part keeps the original links');
    const { data } = await t.resend.emails.get(emailId);
    assert.equal(data!.html, HTML, 'the email record keeps the html as sent');
  });

  it('records email.opened for every load of the pixel (no API key) and answers a GIF nobody caches', async () => {
    await waitForLastEvent(t, emailId, 'delivered');
    for (let i = 0; i < 2; i++) {
      const res = await visit(pixel, { headers: { 'user-agent': 'MailClient/1.0' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/gif');
      assert.match(res.headers.get('cache-control')!, /no-store/);
      assert.equal(
        Buffer.from(await res.arrayBuffer())
          .subarray(0, 6)
          .toString(),
        'GIF89a',
      );
    }
    const opened = (await eventsOf(t, emailId)).filter((e) => e.type === 'email.opened');
    assert.equal(opened.length, 2, 'repeated opens are recorded, as Resend does');
    assert.equal(opened[0]!.data.email_id, emailId);
    assert.deepEqual(opened[0]!.data.to, ['ann@example.org']);
    assert.equal(opened[0]!.data.subject, 'Tracked');
    const { data } = await t.resend.emails.get(emailId);
    assert.equal(data!.last_event, 'opened');
  });

  it('redirects a click (302) to the original URL and records email.clicked with the click object', async () => {
    const link = links.find((l) => l.startsWith(`${PUBLIC_URL}/t/c/`))!;
    const res = await visit(link, { headers: { 'user-agent': 'Browser/2.0' } });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), 'https://acme.test/pricing?plan=pro&ref=mail');
    const clicked = (await eventsOf(t, emailId)).filter((e) => e.type === 'email.clicked');
    assert.equal(clicked.length, 1);
    const { click } = clicked[0]!.data;
    assert.deepEqual(Object.keys(click).sort(), ['ipAddress', 'link', 'timestamp', 'userAgent']);
    assert.equal(click.link, 'https://acme.test/pricing?plan=pro&ref=mail');
    assert.equal(click.userAgent, 'Browser/2.0');
    assert.match(click.ipAddress, /127\.0\.0\.1/);
    assert.ok(Math.abs(Date.parse(click.timestamp) - Date.now()) < 60_000);
    const { data } = await t.resend.emails.get(emailId);
    assert.equal(data!.last_event, 'clicked');
    const unicode = await visit(links.find((l) => l.includes('n%25C3%25AFcode'))!);
    assert.equal(unicode.headers.get('location'), 'https://acme.test/%C3%BCn%C3%AFcode%20path');
  });

  it("counts the opens and clicks in the recipient's contact activity", async () => {
    assert.equal((await t.resend.contacts.create({ email: 'ann@example.org' })).error, null);
    const res = await fetch(`${t.url}/contacts/ann@example.org/activity`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    assert.equal(res.status, 200);
    const activity = await res.json();
    const email = activity.emails.find((e: any) => e.id === emailId);
    assert.deepEqual([email.subject, email.last_event, email.opens, email.clicks], ['Tracked', 'clicked', 2, 2]);
    assert.deepEqual([activity.unsubscribes, activity.automation_runs], [[], []]);
  });

  it('never redirects a forged or altered link, and records nothing for it', async () => {
    const events = (await eventsOf(t, emailId)).length;
    const link = new URL(links.find((l) => l.startsWith(`${PUBLIC_URL}/t/c/`))!);
    const [, , , id, signature] = link.pathname.split('/');
    const other = (await t.resend.emails.send({ from: 'hello@sender.test', to: 'bob@example.org', subject: 'x', html: '<p>x</p>' })).data!.id;
    const forged = [
      `${PUBLIC_URL}/t/c/${id}/${signature}?url=${encodeURIComponent('https://evil.test/phish')}`, // another destination
      `${PUBLIC_URL}/t/c/${other}/${signature}${link.search}`, // another email
      `${PUBLIC_URL}/t/c/${id}/${alteredSignature(signature!)}${link.search}`, // another signature
      `${PUBLIC_URL}/t/c/${id}/${signature}`, // no destination
      `${PUBLIC_URL}/t/c/${id}/${pixel.split('/').pop()}${link.search}`, // the open pixel's signature
      `${PUBLIC_URL}/t/c/not-a-uuid/${signature}${link.search}`,
    ];
    for (const url of forged) {
      const res = await visit(url);
      assert.equal(res.status, 404, url);
      assert.equal(res.headers.get('location'), null);
      assert.equal((await res.json()).name, 'not_found');
    }
    const forgedPixel = await visit(`${PUBLIC_URL}/t/o/${other}/${pixel.split('/').pop()}`);
    assert.equal(forgedPixel.status, 404);
    assert.equal((await eventsOf(t, emailId)).length, events, 'nothing recorded');
    assert.deepEqual(
      (await eventsOf(t, other)).filter((e) => e.type.startsWith('email.opened')),
      [],
    );
  });

  it('leaves the html of a domain without tracking untouched', async () => {
    const sent = await t.resend.emails.send({ from: 'hello@plain.test', to: 'carol@example.org', subject: 'Plain', html: HTML });
    const parsed = await PostalMime.parse((await deliveredTo('carol@example.org')).raw);
    assert.doesNotMatch(parsed.html!, /\/t\/[oc]\//);
    assert.match(parsed.html!, /href="https:\/\/acme\.test\/pricing\?plan=pro&amp;ref=mail"/);
    assert.ok(sent.data!.id);
  });
});
