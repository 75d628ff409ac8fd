// POSTLINE_SANDBOX=true, tried as a newcomer would: no domain created, no DNS published. An
// email from any domain is accepted, composed, DKIM-signed and delivered, over SMTP, to the
// built-in catcher instead of an MX host: nothing asks DNS for an MX and nothing connects to
// one. The captured message is listed and shown like Mailpit shows it (HTML, text, headers,
// raw, DKIM verdict), resend.dev test addresses still produce their events, and the domain
// used is reported as sandboxed. Without the setting, none of this exists.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { eventually } from '../support/eventually.js';

describe('sandbox mode', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_SANDBOX: 'true' } });
  });
  after(() => t.stop());

  const lastEvent = async (id: string) => (await t.resend.emails.get(id)).data?.last_event;

  it('delivers mail from a domain nobody set up to the catcher, signed, and shows it', async () => {
    const { data, error } = await t.resend.emails.send({
      from: 'My App <hello@my-app.test>',
      to: ['someone@gmail.com', 'other@example.org'],
      subject: 'Welcome to the sandbox',
      html: '<h1>Hello</h1><p>It <b>works</b>.</p>',
      headers: { 'X-Entity-Ref-ID': 'sandbox-1' },
      tags: [{ name: 'kind', value: 'welcome' }],
    });
    assert.equal(error, null, JSON.stringify(error));
    const id = data!.id;
    await eventually(async () => (await lastEvent(id)) === 'delivered', 15_000, 'delivered to the catcher');

    const list = await rawRequest(t, 'GET', '/sandbox/messages');
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.body.object, 'list');
    // One SMTP transaction per recipient domain, as towards real MX hosts.
    assert.deepEqual(list.body.data.map((m: { to: string[] }) => m.to.join()).sort(), ['other@example.org', 'someone@gmail.com']);
    const captured = list.body.data.find((m: { to: string[] }) => m.to[0] === 'someone@gmail.com');
    for (const m of list.body.data) {
      assert.equal(m.email_id, id);
      assert.equal(m.subject, 'Welcome to the sandbox');
      assert.equal(m.from, 'My App <hello@my-app.test>');
      assert.equal(m.dkim, 'pass', 'signed with the domain’s own key, verified against it');
    }

    const shown = await rawRequest(t, 'GET', `/sandbox/messages/${captured.id}`);
    assert.equal(shown.status, 200);
    assert.match(shown.body.html, /<h1>Hello<\/h1>/);
    assert.match(shown.body.text, /^HELLO\n\nIt works\./, 'the text part made from the HTML');
    assert.ok(shown.body.headers.some((h: { name: string; value: string }) => /^x-entity-ref-id$/i.test(h.name) && h.value === 'sandbox-1'));
    assert.ok(shown.body.headers.some((h: { name: string }) => /^dkim-signature$/i.test(h.name)));
    assert.equal(shown.body.dkim_results[0].domain, 'my-app.test');
    const raw = await fetch(`${t.url}/sandbox/messages/${captured.id}/raw`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    assert.equal(raw.headers.get('content-type'), 'message/rfc822');
    assert.match(await raw.text(), /^Subject: Welcome to the sandbox\r$/m);

    // The last hop was the catcher: no MX asked for, no MX connected to.
    assert.equal(t.sink.connections, 0);
    assert.ok(!t.dns.queries.some((q) => q.type === 'MX'), JSON.stringify(t.dns.queries));
    const [row] = await t.sql(`SELECT last_response FROM deliveries WHERE email_id = $1 LIMIT 1`, [id]);
    assert.match(row.last_response, /^250 .*Captured by the sandbox/);

    // The domain came into being on first use, and says it is a sandbox's.
    const domains = await t.resend.domains.list();
    const domain = domains.data!.data.find((d) => d.name === 'my-app.test') as { sandboxed?: boolean; id: string } | undefined;
    assert.equal(domain?.sandboxed, true);
    const detail = await rawRequest(t, 'GET', `/domains/${domain!.id}`);
    assert.equal(detail.body.sandboxed, true);
    assert.ok(detail.body.records.length > 0, 'the records to publish for production are there');
  });

  it('keeps the resend.dev test addresses: bounced and complained come back as events', async () => {
    const bounced = await t.resend.emails.send({ from: 'hello@my-app.test', to: 'bounced@resend.dev', subject: 'b', text: 'b' });
    const complained = await t.resend.emails.send({ from: 'hello@my-app.test', to: 'complained@resend.dev', subject: 'c', text: 'c' });
    await eventually(async () => (await lastEvent(bounced.data!.id)) === 'bounced', 15_000, 'bounced');
    await eventually(async () => (await lastEvent(complained.data!.id)) === 'complained', 15_000, 'complained');
    const ids = (await rawRequest(t, 'GET', '/sandbox/messages')).body.data.map((m: { email_id: string }) => m.email_id);
    assert.ok(!ids.includes(bounced.data!.id), 'simulated, never handed to the catcher');
  });

  it('sends a broadcast from a domain nobody set up, every contact caught', async () => {
    const segment = await t.resend.segments.create({ name: 'Readers' });
    for (const email of ['ann@example.org', 'bob@example.org']) {
      const created = await t.resend.contacts.create({ email, segments: [{ id: segment.data!.id }] } as never);
      assert.equal(created.error, null, JSON.stringify(created.error));
    }
    const { data, error } = await t.resend.broadcasts.create({
      segmentId: segment.data!.id,
      from: 'News <news@letters.test>',
      subject: 'Issue 1',
      text: 'Hi',
      send: true,
    });
    assert.equal(error, null, JSON.stringify(error));
    await eventually(async () => (await t.resend.broadcasts.get(data!.id)).data?.status === 'sent', 15_000, 'the broadcast sent');
    const caught = await eventually(
      async () => {
        const list = (await rawRequest(t, 'GET', '/sandbox/messages')).body.data.filter((m: { subject: string }) => m.subject === 'Issue 1');
        return list.length === 2 && list;
      },
      15_000,
      'both readers caught',
    );
    assert.deepEqual(caught.map((m: { to: string[] }) => m.to[0]).sort(), ['ann@example.org', 'bob@example.org']);
    assert.ok(caught.every((m: { dkim: string }) => m.dkim === 'pass'));
  });

  it("keeps another account's captured mail to itself", async () => {
    const { createAccount } = await import('../../src/accounts/accounts.js');
    const stranger = await createAccount(t.postline.db, 'stranger');
    const theirs = await rawRequest({ url: t.url, apiKey: stranger.token }, 'GET', '/sandbox/messages');
    assert.deepEqual(theirs.body.data, []);
    const [mine] = (await rawRequest(t, 'GET', '/sandbox/messages')).body.data;
    const peek = await rawRequest({ url: t.url, apiKey: stranger.token }, 'GET', `/sandbox/messages/${mine.id}`);
    assert.equal(peek.status, 404);
  });

  it('refuses to release captured mail without POSTLINE_SANDBOX_RELEASE_URL: nothing may leave', async () => {
    assert.deepEqual((await rawRequest(t, 'GET', '/sandbox')).body, { object: 'sandbox', release: { enabled: false, relay: null } });
    const [mine] = (await rawRequest(t, 'GET', '/sandbox/messages')).body.data;
    const released = await rawRequest(t, 'POST', `/sandbox/messages/${mine.id}/release`, { body: { to: 'real@example.net' } });
    assert.equal(released.status, 403);
    assert.equal(released.body.name, 'validation_error');
    assert.match(released.body.message, /POSTLINE_SANDBOX_RELEASE_URL/);
    assert.deepEqual(await t.sql(`SELECT * FROM sandbox_releases`), []);
  });
});

describe('production mode (the default)', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t.stop());

  it('captures nothing: no sandbox routes, and an unverified domain may not send', async () => {
    assert.equal((await rawRequest(t, 'GET', '/sandbox/messages')).status, 404);
    assert.equal((await rawRequest(t, 'DELETE', '/sandbox/messages')).status, 404);
    assert.equal((await rawRequest(t, 'GET', '/sandbox')).status, 404);
    const { error } = await t.resend.emails.send({ from: 'hello@my-app.test', to: 'someone@example.org', subject: 'x', text: 'x' });
    assert.equal(error?.statusCode, 403);
    assert.match(error!.message, /not verified/);
  });
});
