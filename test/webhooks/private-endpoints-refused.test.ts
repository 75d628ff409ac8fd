// A tenant's webhook endpoint may not reach the installation's own network (SSRF): by default
// an endpoint that names a loopback, private or link-local address in any spelling is refused
// when it is created or changed (422 naming the field), and a host name that resolves to one
// is refused at every attempt, before any connection, with an attempt error that says so.
// Two loopback receivers (IPv4 and IPv6) answer with a secret and count what reaches them:
// nothing may, and no byte of their answer may appear in the delivery log. The operator can
// open private addresses deliberately (POSTLINE_WEBHOOK_ALLOW_PRIVATE: true or CIDR ranges).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createVerifiedDomain } from '../support/domains.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { eventually, FAST_RETRIES, FROM, SENDER_DOMAIN, send } from './support.js';
import { closeServer } from '../support/eventually.js';

const SECRET = 'instance-credentials-7f3a9c';

class CountingServer {
  hits = 0;
  paths: string[] = [];
  port = 0;
  private server = http.createServer((req, res) => {
    this.hits++;
    this.paths.push(req.url ?? '');
    req.resume();
    if (this.redirectTo) res.writeHead(307, { location: this.redirectTo }).end();
    else res.end(SECRET);
  });
  constructor(
    private host: string,
    /** Answer every request with a 307 to this URL instead. */
    private redirectTo?: string,
  ) {}
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, this.host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await closeServer(this.server);
  }
}

describe("webhooks: endpoints into the installation's own network are refused by default", () => {
  let t: TestPostline;
  let v4: CountingServer;
  let v6: CountingServer;
  const named: Record<string, string> = {};

  before(async () => {
    v4 = await new CountingServer('127.0.0.1').start();
    v6 = await new CountingServer('::1').start();
    // The default: POSTLINE_WEBHOOK_ALLOW_PRIVATE unset.
    t = await startTestPostline({ env: FAST_RETRIES });
    await createVerifiedDomain(t, SENDER_DOMAIN);
    t.dns.set('hooks.acme.test', { A: ['127.0.0.1'] });
    t.dns.set('hooks6.acme.test', { AAAA: ['::1'] });
    t.dns.set('mapped.acme.test', { AAAA: ['::ffff:127.0.0.1'] });
  });
  after(async () => {
    await t.stop();
    await Promise.all([v4.stop(), v6.stop()]);
  });

  /** Waits until the endpoint's newest message has used up its attempts; returns their log. */
  async function failedAttempts(webhookId: string): Promise<{ http_status_code: number; response: string }[]> {
    const message = await eventually(
      async () => {
        const { data } = await t.resend.webhooks.events.list({ webhookId, limit: 1 });
        const newest = data?.data[0];
        return newest?.status === 'failed' ? newest : undefined;
      },
      10_000,
      `a failed message for ${webhookId}`,
    );
    assert.equal((message as { attempts?: number }).attempts, 4, 'the first attempt and three retries');
    const { data, error } = await t.resend.webhooks.events.attempts.list({ webhookId, eventId: message.id });
    assert.equal(error, null);
    assert.equal(data!.data.length, 4);
    return data!.data;
  }

  it('refuses addresses in every spelling at create and update: 422 naming the field', async () => {
    const endpoints = [
      `http://127.0.0.1:${v4.port}/hook`,
      `http://[::1]:${v6.port}/hook`,
      `http://[::ffff:127.0.0.1]:${v4.port}/hook`,
      `http://2130706433:${v4.port}/hook`,
      `http://0177.0.0.1:${v4.port}/hook`,
      `http://0x7f.1:${v4.port}/hook`,
      `http://localhost:${v4.port}/hook`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/hook',
      'https://192.168.1.1/hook',
      'http://[fd00::1]/hook',
      'http://[fe80::1]/hook',
      'http://0.0.0.0/hook',
    ];
    for (const endpoint of endpoints) {
      const res = await rawRequest(t, 'POST', '/webhooks', { body: { endpoint, events: ['email.sent'] } });
      assert.equal(res.status, 422, `${endpoint}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.name, 'validation_error');
      assert.equal(res.body.statusCode, 422);
      assert.match(res.body.message, /`endpoint`.*is not a public address \((loopback|private|link-local|unique-local|unspecified)/, endpoint);
    }
    const viaSdk = await t.resend.webhooks.create({ endpoint: `http://127.0.0.1:${v4.port}/`, events: ['email.sent'] });
    assert.equal(viaSdk.error?.statusCode, 422);

    const kept = await t.resend.webhooks.create({ endpoint: 'https://hooks.example.com/kept', events: ['email.sent'] });
    assert.equal(kept.error, null);
    const changed = await rawRequest(t, 'PATCH', `/webhooks/${kept.data!.id}`, { body: { endpoint: `http://2130706433:${v4.port}/` } });
    assert.equal(changed.status, 422);
    assert.match(changed.body.message, /127\.0\.0\.1 is not a public address \(loopback\)/);
    assert.equal((await t.resend.webhooks.get(kept.data!.id)).data!.endpoint, 'https://hooks.example.com/kept');
    assert.equal((await t.resend.webhooks.remove(kept.data!.id)).error, null);
    assert.equal((await t.resend.webhooks.list()).data!.data.length, 0, 'no refused endpoint was stored');
  });

  it('refuses host names that resolve to loopback at every attempt, reading nothing', async () => {
    for (const host of ['hooks.acme.test', 'hooks6.acme.test', 'mapped.acme.test']) {
      const port = host === 'hooks6.acme.test' ? v6.port : v4.port;
      const { data, error } = await t.resend.webhooks.create({ endpoint: `http://${host}:${port}/hook`, events: ['email.sent'] });
      assert.equal(error, null, 'a name is judged when connecting, not when stored');
      named[host] = data!.id;
    }
    await send(t, { to: 'delivered@resend.dev' });
    const expected: Record<string, RegExp> = {
      'hooks.acme.test': /^not sent: hooks\.acme\.test resolves to 127\.0\.0\.1, which is not a public address \(loopback\)/,
      'hooks6.acme.test': /^not sent: hooks6\.acme\.test resolves to ::1, which is not a public address \(loopback\)/,
      'mapped.acme.test': /^not sent: mapped\.acme\.test resolves to ::ffff:7f00:1, which is not a public address \(loopback, IPv4 127\.0\.0\.1 inside IPv6\)/,
    };
    for (const [host, id] of Object.entries(named)) {
      for (const attempt of await failedAttempts(id)) {
        assert.equal(attempt.http_status_code, 0, host);
        assert.match(attempt.response, expected[host]!);
      }
    }
    assert.equal(v4.hits + v6.hits, 0, 'nothing reached the loopback receivers');
    const leaked = await t.sql(`SELECT count(*)::int AS n FROM webhook_attempts WHERE response LIKE '%' || $1 || '%'`, [SECRET]);
    assert.equal(leaked[0].n, 0);
  });

  it('refuses at delivery an address endpoint stored while the operator allowed it', async () => {
    await t.restart({ POSTLINE_WEBHOOK_ALLOW_PRIVATE: 'true' });
    const { data, error } = await t.resend.webhooks.create({ endpoint: `http://0177.0.0.1:${v4.port}/hook`, events: ['email.sent'] });
    assert.equal(error, null);
    named.literal = data!.id;
    await t.restart({ POSTLINE_WEBHOOK_ALLOW_PRIVATE: 'false' });
    await send(t, { to: 'delivered@resend.dev' });
    for (const attempt of await failedAttempts(named.literal)) {
      assert.match(attempt.response, /^not sent: 127\.0\.0\.1 is not a public address \(loopback\)/);
    }
    assert.equal(v4.hits + v6.hits, 0);
  });

  it('reaches exactly the ranges the operator lists, and follows no redirect', async () => {
    await t.restart({ POSTLINE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
    const redirector = await new CountingServer('127.0.0.1', `http://127.0.0.1:${v4.port}/redirected`).start();
    const redirected = await t.resend.webhooks.create({ endpoint: `http://127.0.0.1:${redirector.port}/hook`, events: ['email.sent'] });
    assert.equal(redirected.error, null);
    const id = await send(t, { from: FROM, to: 'delivered@resend.dev' });
    // 127.0.0.0/8 opens hooks.acme.test, the literal and the mapped address; ::1 stays refused.
    await eventually(async () => v4.hits >= 3, 10_000, 'three endpoints on 127.0.0.1 reached');
    for (const webhookId of [named['hooks.acme.test']!, named.literal!, named['mapped.acme.test']!]) {
      const { data } = await t.resend.webhooks.events.list({ webhookId, limit: 1 });
      const message = data!.data[0]!;
      const got = await t.resend.webhooks.events.get({ webhookId, eventId: message.id });
      assert.equal((got.data!.payload as any).data.email_id, id);
      await eventually(async () => (await t.resend.webhooks.events.list({ webhookId, limit: 1 })).data?.data[0]?.status === 'success', 5_000, 'success');
    }
    for (const attempt of await failedAttempts(named['hooks6.acme.test']!)) assert.match(attempt.response, /resolves to ::1, which is not a public address/);
    assert.equal(v6.hits, 0);
    // A redirect is an answer like any other non-2xx: retried as a failure, never followed.
    for (const attempt of await failedAttempts(redirected.data!.id)) assert.equal(attempt.http_status_code, 307);
    assert.equal(redirector.hits, 4);
    assert.ok(!v4.paths.includes('/redirected'), 'the redirect target was never requested');
    await redirector.stop();
  });
});
