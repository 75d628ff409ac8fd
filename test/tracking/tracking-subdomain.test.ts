// A domain's `tracking_subdomain` (Resend's field) is real: the domain lists a CNAME record for
// `<subdomain>.<domain>` pointing at Postline's public host, verified like its other records;
// once it verifies, the domain's tracked links and open pixel use https://<subdomain>.<domain>/,
// and Postline answers them by Host, while that host serves nothing else (no API, no
// dashboard). Until then, and after the subdomain changes, links stay on POSTLINE_PUBLIC_URL.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import PostalMime from 'postal-mime';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { eventsOf, waitForLastEvent } from '../delivery/support.js';

const PUBLIC_URL = 'https://mail.postline.test';
const HTML = '<p><a href="https://acme.test/pricing">Pricing</a></p>';

describe("a domain's own tracking host", () => {
  let t: TestPostline;
  let domainId: string;

  /** A request to this Postline as a client of `host` sends it (what the CNAME leads to). */
  const get = (host: string, path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; location?: string; body: string }>((resolve, reject) => {
      const url = new URL(t.url);
      const req = http.get({ host: url.hostname, port: url.port, path, headers: { host, ...headers } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, body }));
      });
      req.on('error', reject);
    });
  const sendTracked = async (to: string) => {
    const { data, error } = await t.resend.emails.send({ from: 'news@brand.test', to, subject: 'Tracked', html: HTML });
    assert.equal(error, null, JSON.stringify(error));
    await eventually(async () => t.sink.messages.some((m) => m.to.includes(to)), 15_000, `mail to ${to}`);
    const parsed = await PostalMime.parse(t.sink.messages.find((m) => m.to.includes(to))!.raw);
    const html = parsed.html!.replace(/&amp;/g, '&');
    return { id: data!.id, click: /<a href="([^"]+)"/.exec(html)![1]!, pixel: /<img src="([^"]+)" width="1"/.exec(html)![1]! };
  };

  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_PUBLIC_URL: PUBLIC_URL } });
    domainId = (await createVerifiedDomain(t, 'brand.test')).id;
    const updated = await t.resend.domains.update({ id: domainId, openTracking: true, clickTracking: true, trackingSubdomain: 'links' } as any);
    assert.equal(updated.error, null, JSON.stringify(updated.error));
    t.dns.set('inbox.test', { MX: [{ exchange: 'mx.inbox.test', priority: 10 }] });
    t.dns.set('mx.inbox.test', { A: ['127.0.0.1'] });
  });
  after(() => t?.stop());

  it('lists the CNAME to publish, and keeps links on the public URL until it verifies', async () => {
    const { data } = await t.resend.domains.get(domainId);
    const record = (data as any).recommended_records.find((r: any) => r.record === 'Tracking');
    assert.deepEqual(record, { record: 'Tracking', name: 'links', type: 'CNAME', ttl: 'Auto', status: 'not_started', value: 'mail.postline.test' });
    const { click, pixel } = await sendTracked('before@inbox.test');
    assert.ok(click.startsWith(`${PUBLIC_URL}/t/c/`), click);
    assert.ok(pixel.startsWith(`${PUBLIC_URL}/t/o/`), pixel);
  });

  it('uses https://links.brand.test/ once the CNAME verifies, and answers there by Host', async () => {
    t.dns.set('links.brand.test', { CNAME: 'mail.postline.test' });
    assert.equal((await rawRequest(t, 'POST', `/domains/${domainId}/verify`)).status, 200);
    const { data } = await t.resend.domains.get(domainId);
    assert.equal((data as any).recommended_records.find((r: any) => r.record === 'Tracking').status, 'verified');
    assert.equal(data?.status, 'verified');

    const { id, click, pixel } = await sendTracked('after@inbox.test');
    assert.ok(click.startsWith('https://links.brand.test/t/c/'), click);
    assert.ok(pixel.startsWith('https://links.brand.test/t/o/'), pixel);
    const clicked = await get('links.brand.test', click.slice('https://links.brand.test'.length));
    assert.equal(clicked.status, 302);
    assert.equal(clicked.location, 'https://acme.test/pricing');
    const opened = await get('links.brand.test', pixel.slice('https://links.brand.test'.length));
    assert.equal(opened.status, 200);
    await waitForLastEvent(t, id, 'clicked').catch(() => waitForLastEvent(t, id, 'opened'));
    const types = (await eventsOf(t, id)).map((e) => e.type);
    assert.ok(types.includes('email.clicked') && types.includes('email.opened'), types.join(' '));
  });

  it('serves nothing but tracking under the tracking host', async () => {
    await eventually(async () => (await get('links.brand.test', '/domains', { authorization: `Bearer ${t.apiKey}` })).status === 404, 15_000, 'the host known');
    const api = await get('links.brand.test', '/domains', { authorization: `Bearer ${t.apiKey}` });
    assert.deepEqual(JSON.parse(api.body), { statusCode: 404, message: 'Page not found', name: 'not_found' });
    assert.equal((await get('links.brand.test', '/dashboard/')).status, 404);
    // The public host still serves the API.
    assert.equal((await get('mail.postline.test', '/domains', { authorization: `Bearer ${t.apiKey}` })).status, 200);
  });

  it('goes back to the public URL when the subdomain changes, until the new one verifies', async () => {
    const updated = await t.resend.domains.update({ id: domainId, trackingSubdomain: 'go' } as any);
    assert.equal(updated.error, null);
    const { data } = await t.resend.domains.get(domainId);
    const record = (data as any).recommended_records.find((r: any) => r.record === 'Tracking');
    assert.deepEqual([record.name, record.status], ['go', 'not_started']);
    const { click } = await sendTracked('changed@inbox.test');
    assert.ok(click.startsWith(`${PUBLIC_URL}/t/c/`), click);
  });
});
