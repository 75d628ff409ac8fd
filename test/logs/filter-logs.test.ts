// GET /logs filtered by status (a code or a class), endpoint (a path prefix) and API key, as
// the dashboard's Logs page asks; each filter validated, combined with the others and with
// the cursor, account-scoped. Of the dashboard's own requests (a session) only the changes are
// logged, with the user who made them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { createUser } from '../../src/users/users.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('request logs: filters', () => {
  let t: TestPostline;
  let second: { id: string; resend: Resend };

  before(async () => {
    t = await startTestPostline();
    const key = await t.resend.apiKeys.create({ name: 'second key' });
    assert.equal(key.error, null);
    second = { id: key.data!.id, resend: new Resend(key.data!.token, { baseUrl: t.url }) };
    // With the first key: a 422, a 404, two 200s; with the second: a 200 and a 422.
    assert.equal((await rawRequest(t, 'POST', '/api-keys', { body: { name: 'x', nope: 1 } })).status, 422);
    assert.equal((await t.resend.emails.get('3f2b1c9e-8d4a-4e6f-9a7b-1c2d3e4f5a6b')).error?.statusCode, 404);
    await t.resend.apiKeys.list();
    await t.resend.domains.list();
    await second.resend.apiKeys.list();
    assert.equal((await second.resend.emails.send({ from: 'a@nowhere.test', to: 'b@example.com', subject: '', html: '' })).error?.statusCode, 422);
  });
  after(() => t.stop());

  const list = async (query: string) => {
    const res = await rawRequest(t, 'GET', `/logs?limit=100&${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data as { id: string; endpoint: string; method: string; response_status: number }[];
  };

  it('filters by an exact status, or by a class', async () => {
    const unprocessable = await list('status=422');
    assert.deepEqual(unprocessable.map((l) => `${l.method} ${l.endpoint}`).sort(), ['POST /api-keys', 'POST /emails']);
    const clientErrors = await list('status=4xx');
    assert.deepEqual(clientErrors.map((l) => l.response_status).sort(), [404, 422, 422]);
    const ok = await list('status=2xx');
    assert.ok(ok.length >= 4 && ok.every((l) => l.response_status >= 200 && l.response_status < 300));
    assert.deepEqual(await list('status=503'), []);
  });

  it('filters by a path prefix, taking LIKE wildcards literally', async () => {
    const keys = await list('endpoint=/api-keys');
    assert.ok(keys.length >= 4 && keys.every((l) => l.endpoint === '/api-keys'));
    const emails = await list(`endpoint=${encodeURIComponent('/emails')}`);
    assert.deepEqual(emails.map((l) => l.endpoint).sort(), ['/emails', '/emails/3f2b1c9e-8d4a-4e6f-9a7b-1c2d3e4f5a6b']);
    assert.deepEqual(await list(`endpoint=${encodeURIComponent('/%')}`), []);
    assert.deepEqual(await list(`endpoint=${encodeURIComponent('/api_keys')}`), [], '_ is not a wildcard');
  });

  it('filters by API key, and combines filters with each other and with the cursor', async () => {
    const bySecond = await list(`api_key_id=${second.id}`);
    assert.deepEqual(bySecond.map((l) => `${l.response_status} ${l.method} ${l.endpoint}`).sort(), ['200 GET /api-keys', '422 POST /emails']);
    const both = await list(`api_key_id=${second.id}&status=422&endpoint=/emails`);
    assert.equal(both.length, 1);
    const page1 = await rawRequest(t, 'GET', '/logs?limit=1&status=4xx');
    assert.equal(page1.body.has_more, true);
    const page2 = await rawRequest(t, 'GET', `/logs?limit=100&status=4xx&after=${page1.body.data[0].id}`);
    assert.equal(page2.body.data.length, 2);
    assert.ok(page2.body.data.every((l: { response_status: number }) => l.response_status >= 400));
  });

  it('refuses malformed filters with 422', async () => {
    for (const query of ['status=42', 'status=600', 'status=4XX', 'status=abc', 'endpoint=', `endpoint=${'/a'.repeat(251)}`, 'api_key_id=nope']) {
      const res = await rawRequest(t, 'GET', `/logs?${query}`);
      assert.equal(res.status, 422, query);
      assert.equal(res.body.name, 'invalid_parameter', query);
      assert.equal(res.body.statusCode, 422);
    }
  });

  it("finds nothing of another account's, even with its key's id", async () => {
    const other = await createAccount(t.postline.db, 'Other');
    const stranger = new Resend(other.token, { baseUrl: t.url });
    await stranger.apiKeys.list();
    const theirs = await rawRequest(t, 'GET', `/logs?status=2xx&limit=100`, { auth: other.token });
    assert.ok(theirs.body.data.every((l: { endpoint: string }) => ['/api-keys', '/logs'].includes(l.endpoint)));
    assert.deepEqual((await rawRequest(t, 'GET', `/logs?api_key_id=${second.id}`, { auth: other.token })).body.data, []);
  });

  it("logs what dashboard users changed, with the user, but not the dashboard's reads", async () => {
    const { token } = await createUser(t.postline.db, 'Default', 'someone@logs.postline.test');
    const signedIn = await fetch(`${t.url}/dashboard/api/set-password`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, password: 'correct horse battery' }),
    });
    assert.equal(signedIn.status, 200);
    const session = await signedIn.json();
    const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const before = (await list('endpoint=/webhooks')).length;
    const res = await fetch(`${t.url}/webhooks`, { headers: { cookie } });
    assert.equal(res.status, 200);
    await t.resend.webhooks.list();
    // The key's request is there (so the log was flushed), the session's read is not.
    assert.equal((await list('endpoint=/webhooks')).length, before + 1);

    // A change made from the dashboard is logged with its user, and is found by `source`.
    const created = await fetch(`${t.url}/segments`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
      body: JSON.stringify({ name: 'Made in the dashboard' }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    const changes = await list('source=dashboard');
    assert.deepEqual(
      changes.map((l: any) => [l.method, l.endpoint, l.response_status, l.user]),
      [['POST', '/segments', 201, { id: session.user.id, email: 'someone@logs.postline.test' }]],
    );
    const log = await rawRequest(t, 'GET', `/logs/${changes[0]!.id}`);
    assert.deepEqual(log.body.request_body, { name: 'Made in the dashboard' });
    assert.deepEqual(log.body.user, { id: session.user.id, email: 'someone@logs.postline.test' });
    const fromKeys = await list('source=api');
    assert.ok(fromKeys.length > 0 && fromKeys.every((l: any) => l.user === null));
    assert.equal((await rawRequest(t, 'GET', '/logs?source=browser')).status, 422);
  });
});
