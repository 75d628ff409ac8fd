// What Mailpit does with captured mail, through the API (src/sandbox/): search the list, delete
// one message or all of the account's, download an attachment (always as a download, under a
// safe name), check the links of the HTML through the egress rule (a local HTTP server stands
// in for the web, reached only because POSTLINE_SANDBOX_LINK_CHECK_ALLOW_PRIVATE opens
// 127.0.0.1), and release a message to a real address: a new email through the accept
// pipeline (its own id, events, webhooks), handed by the catcher to the relay
// POSTLINE_SANDBOX_RELEASE_URL names (a real SMTP sink here), never captured again.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { verifyDkim } from '../support/dkim.js';
import { closeServer, eventually } from '../support/eventually.js';
import { MxSink } from '../support/mx-sink.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { subscribe, WebhookReceiver } from '../webhooks/support.js';

const FROM = 'Shop <orders@shop.test>';

describe('sandbox: search, delete, attachments, link check and release of captured mail', () => {
  let t: TestPostline;
  const relay = new MxSink('127.0.0.1');
  let receiver: WebhookReceiver;
  // The "web" the links point at: each path answers as its name says.
  const web = http.createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/ok') return void res.writeHead(200).end('ok');
    if (path === '/missing') return void res.writeHead(404).end();
    if (path === '/moved') return void res.writeHead(301, { location: '/ok' }).end();
    if (path === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
    if (path === '/get-only') return void res.writeHead(req.method === 'HEAD' ? 405 : 200).end();
    if (path === '/broken') return void res.writeHead(500).end();
    if (path === '/hang') return; // never answers: the per-link deadline ends it
    res.writeHead(204).end();
  });
  const requests: string[] = [];
  web.on('request', (req) => requests.push(`${req.method} ${req.url}`));
  let webUrl: string;

  before(async () => {
    await relay.start();
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    t = await startTestPostline({
      env: {
        POSTLINE_SANDBOX: 'true',
        POSTLINE_SANDBOX_RELEASE_URL: `smtp://127.0.0.1:${relay.port}`,
        POSTLINE_SANDBOX_LINK_CHECK_ALLOW_PRIVATE: '127.0.0.1',
        POSTLINE_WEBHOOK_ALLOW_PRIVATE: 'true',
      },
    });
    receiver = await new WebhookReceiver(t.resend).start();
    await subscribe(t, receiver, ['email.sent', 'email.delivered']);
  });
  after(async () => {
    web.closeAllConnections();
    await Promise.all([t?.stop(), relay.stop(), receiver?.stop(), closeServer(web)]);
  });

  /** Sends, and waits until the catcher has it: the captured message's id. */
  async function capture(payload: Record<string, unknown>, key = t.apiKey): Promise<string> {
    const client = key === t.apiKey ? t.resend : new Resend(key, { baseUrl: t.url });
    const { data, error } = await client.emails.send({ from: FROM, to: 'dev@example.com', subject: 'Hello', html: '<p>Hello</p>', ...payload } as never);
    assert.equal(error, null, JSON.stringify(error));
    const emailId = data!.id;
    return eventually(
      async () => {
        const list = await rawRequest({ url: t.url, apiKey: key }, 'GET', '/sandbox/messages?limit=100');
        return list.body.data.find((m: { email_id: string }) => m.email_id === emailId)?.id as string | undefined;
      },
      15_000,
      `email ${emailId} captured`,
    );
  }

  const search = async (text: string) =>
    (await rawRequest(t, 'GET', `/sandbox/messages?search=${encodeURIComponent(text)}`)).body.data.map((m: { subject: string }) => m.subject).sort();

  it('searches subject, sender and recipients for a fragment, in any case', async () => {
    await capture({ subject: 'Your ORDER #1042 shipped', to: 'ann@customers.test' });
    await capture({ subject: 'Password reset', to: 'bob@people.test', from: 'Security Team <security@accounts.test>' });
    await capture({ subject: '100% off_today', to: 'carol@customers.test' });
    assert.deepEqual(await search('order #10'), ['Your ORDER #1042 shipped'], 'subject, case-insensitive fragment');
    assert.deepEqual(await search('SECURITY TEAM'), ['Password reset'], 'the From display name');
    assert.deepEqual(await search('accounts.test'), ['Password reset'], 'the sender address');
    assert.deepEqual(await search('@Customers.'), ['100% off_today', 'Your ORDER #1042 shipped'], 'a recipient fragment');
    assert.deepEqual(await search('100%'), ['100% off_today'], '% is a character, not a wildcard');
    assert.deepEqual(await search('o_f'), [], '_ is a character, not a wildcard');
    assert.deepEqual(await search('nothing like this'), []);
    // Paging within a search: one at a time, the second page after the first.
    const first = await rawRequest(t, 'GET', '/sandbox/messages?search=customers&limit=1');
    assert.equal(first.body.has_more, true);
    const second = await rawRequest(t, 'GET', `/sandbox/messages?search=customers&limit=1&after=${first.body.data[0].id}`);
    assert.equal(second.body.data.length, 1);
    assert.notEqual(second.body.data[0].id, first.body.data[0].id);
    const bad = await rawRequest(t, 'GET', `/sandbox/messages?search=${encodeURIComponent('two\nlines')}`);
    assert.equal(bad.status, 422);
    assert.equal(bad.body.name, 'invalid_parameter');
    const doc = (await rawRequest(t, 'GET', '/openapi.json', { auth: null })).body.paths['/sandbox/messages'];
    assert.ok(doc.get.parameters.some((p: { name: string; in: string }) => p.name === 'search' && p.in === 'query'));
    assert.ok(doc.delete, 'DELETE /sandbox/messages is documented');
  });

  it('serves each attachment as a download with its type and a safe name, never inline', async () => {
    const page = '<html><body><script>alert(1)</script>hostile</body></html>';
    const id = await capture({
      subject: 'With attachments',
      attachments: [
        { filename: 'page "1".html', content: Buffer.from(page).toString('base64'), contentType: 'text/html' },
        { filename: 'données.csv', content: Buffer.from('a,b\n1,2\n').toString('base64'), contentType: 'text/csv' },
      ],
    });
    const shown = await rawRequest(t, 'GET', `/sandbox/messages/${id}`);
    assert.deepEqual(shown.body.attachments, [
      { index: 0, filename: 'page "1".html', content_type: 'text/html', size: Buffer.byteLength(page) },
      { index: 1, filename: 'données.csv', content_type: 'text/csv', size: 8 },
    ]);
    const html = await fetch(`${t.url}/sandbox/messages/${id}/attachments/0`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    assert.equal(html.status, 200);
    assert.equal(html.headers.get('content-type'), 'text/html');
    assert.equal(html.headers.get('content-disposition'), `attachment; filename="page _1_.html"; filename*=UTF-8''page%20%221%22.html`);
    assert.equal(html.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(html.headers.get('content-security-policy'), "default-src 'none'; sandbox");
    assert.equal(await html.text(), page, 'the bytes as sent');
    const csv = await fetch(`${t.url}/sandbox/messages/${id}/attachments/1`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    assert.equal(csv.headers.get('content-disposition'), `attachment; filename="donn_es.csv"; filename*=UTF-8''donn%C3%A9es.csv`);
    assert.equal(await csv.text(), 'a,b\n1,2\n');
    assert.equal((await rawRequest(t, 'GET', `/sandbox/messages/${id}/attachments/2`)).status, 404);
    assert.equal((await rawRequest(t, 'GET', `/sandbox/messages/${id}/attachments/x`)).body.name, 'invalid_parameter');
    const stranger = await createAccount(t.postline.db, 'attachment stranger');
    assert.equal((await rawRequest({ url: t.url, apiKey: stranger.token }, 'GET', `/sandbox/messages/${id}/attachments/0`)).status, 404);
  });

  it('checks every http(s) link of the HTML on request, through the egress rule, each with a deadline', async () => {
    t.dns.set('links.test', { A: ['127.0.0.1'] });
    const port = new URL(webUrl).port;
    const links = [
      `${webUrl}/ok`,
      `${webUrl}/missing`,
      `http://links.test:${port}/moved`,
      `${webUrl}/get-only`,
      `${webUrl}/broken`,
      `${webUrl}/loop`,
      `${webUrl}/hang`,
      'http://10.0.0.1/internal',
    ];
    const html = [
      ...links.map((l, i) => `<a href="${l}">link ${i}</a>`),
      `<A HREF='${webUrl}/ok'>the same link again</A>`,
      `<a href="${webUrl}/ok?a=1&amp;b=2">an entity in the link</a>`,
      '<a href="mailto:someone@example.com">mail</a> <a href="#top">anchor</a> <a href="javascript:alert(1)">js</a>',
    ].join('\n');
    const id = await capture({ subject: 'Links', html });
    assert.equal(requests.length, 0, 'nothing is requested before the check is asked for');
    const started = Date.now();
    const checked = await rawRequest(t, 'POST', `/sandbox/messages/${id}/link-check`);
    assert.equal(checked.status, 200, JSON.stringify(checked.body));
    assert.ok(Date.now() - started < 15_000, 'the link that never answers is given up on');
    const byUrl = Object.fromEntries(checked.body.links.map((l: { url: string }) => [l.url, l]));
    assert.deepEqual(
      checked.body.links.map((l: { url: string }) => l.url),
      [...links, `${webUrl}/ok?a=1&b=2`],
      'each http(s) link once, in order, entities decoded; mailto, anchors and javascript: left out',
    );
    assert.deepEqual(byUrl[`${webUrl}/ok`], { url: `${webUrl}/ok`, status: 200, redirected_to: null, error: null });
    assert.equal(byUrl[`${webUrl}/missing`].status, 404);
    assert.deepEqual(byUrl[`http://links.test:${port}/moved`], {
      url: `http://links.test:${port}/moved`,
      status: 200,
      redirected_to: `http://links.test:${port}/ok`,
      error: null,
    });
    assert.equal(byUrl[`${webUrl}/get-only`].status, 200, 'GET when HEAD is not allowed');
    assert.equal(byUrl[`${webUrl}/broken`].status, 500);
    assert.equal(byUrl[`${webUrl}/loop`].status, 302);
    assert.match(byUrl[`${webUrl}/loop`].error, /more than 3 redirects/);
    assert.deepEqual(byUrl[`${webUrl}/hang`], { url: `${webUrl}/hang`, status: null, redirected_to: null, error: 'no answer within 5 s' });
    assert.equal(byUrl['http://10.0.0.1/internal'].status, null);
    assert.match(byUrl['http://10.0.0.1/internal'].error, /10\.0\.0\.1 is not a public address \(private\)/);
    assert.equal(checked.body.unchecked, 0);
    assert.ok(requests.includes('HEAD /ok') && requests.includes('GET /get-only'), JSON.stringify(requests));
    assert.ok(!requests.some((r) => r.startsWith('GET /ok')), 'HEAD suffices where it is allowed');
  });

  it('checks at most 50 links and counts the rest', async () => {
    const html = Array.from({ length: 53 }, (_, i) => `<a href="${webUrl}/n${i}">${i}</a>`).join(' ');
    const id = await capture({ subject: 'Many links', html });
    const checked = await rawRequest(t, 'POST', `/sandbox/messages/${id}/link-check`);
    assert.equal(checked.body.links.length, 50);
    assert.ok(checked.body.links.every((l: { status: number }) => l.status === 204));
    assert.equal(checked.body.unchecked, 3);
  });

  it('releases a captured message to a real address through the relay: a new email with its own events and webhooks', async () => {
    const capturedId = await capture({ subject: 'Release me', to: 'dev@example.com', html: '<p>Released body</p>', headers: { 'X-Order': '1042' } });
    const before = (await rawRequest(t, 'GET', '/sandbox/messages?limit=100')).body.data.length;
    const released = await rawRequest(t, 'POST', `/sandbox/messages/${capturedId}/release`, { body: { to: 'Real Person <real@inbox.example.net>' } });
    assert.equal(released.status, 200, JSON.stringify(released.body));
    assert.equal(released.body.object, 'sandbox_release');
    assert.deepEqual(released.body.to, ['real@inbox.example.net']);
    const emailId = released.body.id;
    await relay.waitFor(1);
    const [message] = relay.messages;
    assert.deepEqual(message!.to, ['real@inbox.example.net']);
    assert.match(message!.from, new RegExp(`^bounces\\+${emailId}@`), 'the release’s own envelope sender');
    const raw = message!.raw.toString('latin1');
    assert.match(raw, /^Subject: Release me\r$/m);
    assert.match(raw, /^X-Order: 1042\r$/m);
    assert.match(raw, /Released body/);
    assert.match(raw, new RegExp(`^Message-ID: <${emailId}@shop\\.test>\\r$`, 'm'), 'a Message-ID of its own');
    assert.equal(raw.match(/^DKIM-Signature:/gim)?.length, 1, 'the old signature dropped, one new one');
    // Signed anew with the domain's key: published here, verified as a receiver would.
    const [key] = await t.sql(`SELECT dkim_selector, dkim_public_key FROM domains WHERE name = 'shop.test'`);
    t.dns.set(`${key.dkim_selector}._domainkey.shop.test`, { TXT: [`v=DKIM1; k=rsa; p=${key.dkim_public_key}`] });
    assert.deepEqual(await verifyDkim(t, message!.raw), [{ result: 'pass', domain: 'shop.test' }]);

    // An email like any other: delivered (the relay's 250), its events and webhooks.
    await eventually(async () => (await t.resend.emails.get(emailId)).data?.last_event === 'delivered', 15_000, 'the release delivered');
    const [delivery] = await t.sql(`SELECT last_response FROM deliveries WHERE email_id = $1`, [emailId]);
    assert.match(delivery.last_response, new RegExp(`^250 2\\.0\\.0 Released through 127\\.0\\.0\\.1:${relay.port}: 250`));
    const events = await t.sql(`SELECT type FROM events WHERE email_id = $1 ORDER BY id`, [emailId]);
    assert.deepEqual(
      events.map((e: { type: string }) => e.type),
      ['email.sent', 'email.delivered'],
    );
    await receiver.waitUntil(() => receiver.payloads('email.delivered').some((p) => p.data.email_id === emailId), 15_000, 'email.delivered webhook');
    assert.ok(receiver.payloads('email.sent').some((p) => p.data.email_id === emailId));
    // Not captured again: it left through the relay.
    assert.equal((await rawRequest(t, 'GET', '/sandbox/messages?limit=100')).body.data.length, before);
    const shown = await rawRequest(t, 'GET', `/sandbox/messages/${capturedId}`);
    assert.deepEqual(
      shown.body.releases.map((r: { email_id: string; to: string[]; last_event: string }) => [r.email_id, r.to, r.last_event]),
      [[emailId, ['real@inbox.example.net'], 'delivered']],
    );
    assert.deepEqual((await rawRequest(t, 'GET', '/sandbox')).body, { object: 'sandbox', release: { enabled: true, relay: `127.0.0.1:${relay.port}` } });
  });

  it("reports the relay's refusal as the release's bounce, and refuses bad addresses and other accounts' messages", async () => {
    const capturedId = await capture({ subject: 'Refused release' });
    relay.onRecipient = (address) => (address === 'nobody@inbox.example.net' ? { code: 550, message: '5.1.1 No such user here' } : undefined);
    const released = await rawRequest(t, 'POST', `/sandbox/messages/${capturedId}/release`, { body: { to: ['nobody@inbox.example.net'] } });
    assert.equal(released.status, 200);
    await eventually(async () => (await t.resend.emails.get(released.body.id)).data?.last_event === 'bounced', 15_000, 'the release bounced');
    const [delivery] = await t.sql(`SELECT last_response FROM deliveries WHERE email_id = $1`, [released.body.id]);
    assert.match(delivery.last_response, /^550 5\.0\.0 Refused by the release relay .*No such user here/);
    relay.onRecipient = () => undefined;

    const bad = await rawRequest(t, 'POST', `/sandbox/messages/${capturedId}/release`, { body: { to: 'not an address' } });
    assert.equal(bad.status, 422);
    const none = await rawRequest(t, 'POST', `/sandbox/messages/${capturedId}/release`, { body: { to: [] } });
    assert.equal(none.status, 422);
    const stranger = await createAccount(t.postline.db, 'release stranger');
    const theirs = await rawRequest({ url: t.url, apiKey: stranger.token }, 'POST', `/sandbox/messages/${capturedId}/release`, {
      body: { to: 'x@example.net' },
    });
    assert.equal(theirs.status, 404);
  });

  it("deletes one message, then all of the account's and no other account's", async () => {
    const stranger = await createAccount(t.postline.db, 'delete stranger');
    const theirs = await capture({ subject: 'Theirs', from: 'hi@stranger.test' }, stranger.token);
    const mine = await capture({ subject: 'Delete me' });
    const other = await rawRequest({ url: t.url, apiKey: stranger.token }, 'DELETE', `/sandbox/messages/${mine}`);
    assert.equal(other.status, 404, 'another account’s message is not found');
    const one = await rawRequest(t, 'DELETE', `/sandbox/messages/${mine}`);
    assert.deepEqual(one.body, { object: 'sandbox_message', id: mine, deleted: true });
    assert.equal((await rawRequest(t, 'GET', `/sandbox/messages/${mine}`)).status, 404);
    assert.equal((await rawRequest(t, 'DELETE', `/sandbox/messages/${mine}`)).status, 404);
    const left = (await rawRequest(t, 'GET', '/sandbox/messages?limit=100')).body.data.length;
    assert.ok(left > 0);
    const all = await rawRequest(t, 'DELETE', '/sandbox/messages');
    assert.deepEqual(all.body, { object: 'sandbox_messages', deleted: left });
    assert.deepEqual((await rawRequest(t, 'GET', '/sandbox/messages')).body.data, []);
    const kept = (await rawRequest({ url: t.url, apiKey: stranger.token }, 'GET', '/sandbox/messages')).body.data;
    assert.deepEqual(
      kept.map((m: { id: string }) => m.id),
      [theirs],
      "the other account's captured mail stays",
    );
  });
});

describe('sandbox release: the setting', () => {
  it('is refused without POSTLINE_SANDBOX: it names where a sandbox releases to', () => {
    assert.throws(() => loadConfig({ POSTLINE_SANDBOX_RELEASE_URL: 'smtp://127.0.0.1:2525' }), ConfigError);
    assert.throws(() => loadConfig({ POSTLINE_SANDBOX: 'true', POSTLINE_SANDBOX_RELEASE_URL: 'http://relay.test' }), /must start with smtp:\/\/ or smtps:\/\//);
    const config = loadConfig({ POSTLINE_SANDBOX: 'true', POSTLINE_SANDBOX_RELEASE_URL: 'smtps://user:pw@relay.test:465' });
    assert.equal(config.sandboxReleaseUrl, 'smtps://user:pw@relay.test:465');
  });
});
