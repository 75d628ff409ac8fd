// Request logs through the SDK: every authenticated request is kept with its bodies, secrets
// redacted, visible to its own account only, and purged after the retention period.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Resend } from 'resend';
import { createAccount } from '../../src/accounts/accounts.js';
import { purgeRequestLogs } from '../../src/logs/request-logs.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const REST_TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\+00$/;
const DAY = 86_400_000;

describe('request logs', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_LOG_RETENTION_DAYS: '7' } });
  });
  after(() => t.stop());

  async function latest(endpoint: string, method: string) {
    const list = await t.resend.logs.list({ limit: 100 });
    assert.equal(list.error, null);
    const summary = list.data!.data.find((l) => l.endpoint === endpoint && l.method === method);
    assert.ok(summary, `no log of ${method} ${endpoint}`);
    return summary;
  }

  it('lists requests newest first with the summary fields, and gets one with its bodies', async () => {
    const created = await t.resend.apiKeys.create({ name: 'for the log' });
    assert.equal(created.error, null);

    const list = await t.resend.logs.list();
    assert.equal(list.error, null);
    assert.equal(list.data!.object, 'list');
    assert.equal(typeof list.data!.has_more, 'boolean');
    const summary = list.data!.data[0]!;
    // Resend's fields, and Postline's `user` (null: made with a key).
    assert.deepEqual(Object.keys(summary).sort(), ['created_at', 'endpoint', 'id', 'method', 'response_status', 'user', 'user_agent']);
    assert.equal((summary as unknown as { user: null }).user, null);
    assert.equal(summary.endpoint, '/api-keys');
    assert.equal(summary.method, 'POST');
    assert.equal(summary.response_status, 201);
    assert.match(summary.user_agent!, /^resend-node:/);
    assert.match(summary.created_at, REST_TIMESTAMP);

    const log = await t.resend.logs.get(summary.id);
    assert.equal(log.error, null);
    assert.deepEqual(Object.keys(log.data!), [
      'object',
      'id',
      'created_at',
      'endpoint',
      'method',
      'response_status',
      'user_agent',
      'user',
      'request_body',
      'response_body',
    ]);
    assert.equal(log.data!.object, 'log');
    assert.deepEqual(log.data!.request_body, { name: 'for the log' });
    assert.equal((log.data!.response_body as any).id, created.data!.id);
  });

  it('never keeps an API key token: the logged response has it redacted', async () => {
    const created = await t.resend.apiKeys.create({ name: 'secret keeper' });
    const token = created.data!.token;
    const summary = await latest('/api-keys', 'POST');
    const log = await t.resend.logs.get(summary.id);
    assert.equal((log.data!.response_body as any).id, created.data!.id);
    assert.ok(!JSON.stringify(log.data).includes(token), 'the token is not in the log');
    assert.notEqual((log.data!.response_body as any).token, token);
    const stored = await t.sql(`SELECT coalesce(request_body::text, '') || coalesce(response_body::text, '') AS body FROM request_logs`);
    assert.ok(
      stored.every((r) => !r.body.includes(token)),
      'nor anywhere in the table',
    );
  });

  it('logs failed requests with their status and error body, and bodiless requests with null', async () => {
    const body = { name: 'x', unknown_field: { quote: '"', backslash: '\\', braces: '{}', text: 'ünï 💌', n: [1, null] } };
    const bad = await rawRequest(t, 'POST', '/api-keys', { body });
    assert.equal(bad.status, 422);
    const summary = await latest('/api-keys', 'POST');
    const log = await t.resend.logs.get(summary.id);
    assert.equal(log.data!.response_status, 422);
    assert.deepEqual(log.data!.request_body, body, 'the body is kept exactly');
    assert.deepEqual(log.data!.response_body, bad.body);

    // A body with NUL is refused before parsing (PostgreSQL cannot store it): the request is
    // logged with its 422 and no body, and the logs written in the same batch are kept.
    const nul = await rawRequest(t, 'DELETE', '/api-keys/not-an-id', { body: { name: 'a\u0000b' } });
    assert.equal(nul.status, 422);
    await rawRequest(t, 'GET', '/api-keys?after=not-an-id');
    const nulLog = await t.resend.logs.get((await latest('/api-keys/not-an-id', 'DELETE')).id);
    assert.equal(nulLog.data!.response_status, 422);
    assert.equal(nulLog.data!.request_body, null);
    assert.equal((await latest('/api-keys', 'GET')).response_status, 422);

    await t.resend.apiKeys.list();
    const listed = await t.resend.logs.get((await latest('/api-keys', 'GET')).id);
    assert.equal(listed.data!.request_body, null);
  });

  it('paginates with limit and after', async () => {
    for (let i = 0; i < 3; i++) await t.resend.apiKeys.list();
    const first = await t.resend.logs.list({ limit: 2 });
    assert.equal(first.data!.data.length, 2);
    assert.equal(first.data!.has_more, true);
    const next = await t.resend.logs.list({ limit: 2, after: first.data!.data[1]!.id });
    assert.equal(next.data!.data.length, 2);
    assert.ok(!next.data!.data.some((l) => first.data!.data.some((f) => f.id === l.id)));
    const bad = await rawRequest(t, 'GET', '/logs?limit=101');
    assert.equal(bad.status, 422);
    assert.equal(bad.body.name, 'validation_error');
  });

  it('answers a malformed id with 422 and an unknown one with 404', async () => {
    const malformed = await t.resend.logs.get('not-a-uuid');
    assert.deepEqual(malformed.error, { statusCode: 422, name: 'validation_error', message: 'The `logId` must be a valid UUID.' });
    const unknown = await t.resend.logs.get('3f2b1c9e-8d4a-4e6f-9a7b-1c2d3e4f5a6b');
    assert.deepEqual(unknown.error, { statusCode: 404, name: 'not_found', message: 'Log not found' });
  });

  it("never shows another account's logs", async () => {
    const mine = await latest('/logs', 'GET');
    const other = await createAccount(t.postline.db, 'Other');
    const stranger = new Resend(other.token, { baseUrl: t.url });
    const theirs = await stranger.logs.get(mine.id);
    assert.equal(theirs.error?.statusCode, 404);
    assert.equal(theirs.error?.name, 'not_found');
    const theirList = await stranger.logs.list({ limit: 100 });
    assert.ok(!theirList.data!.data.some((l) => l.id === mine.id));
    // A cursor from another account finds nothing either.
    const cursor = await stranger.logs.list({ after: mine.id });
    assert.equal(cursor.error, null, JSON.stringify(cursor.error));
    assert.deepEqual(cursor.data!.data, []);
  });

  it('purges logs older than POSTLINE_LOG_RETENTION_DAYS, for every account', async () => {
    assert.equal(t.postline.config.logRetentionDays, 7);
    const kept = await latest('/logs', 'GET');
    const days = t.postline.config.logRetentionDays;
    assert.equal(await purgeRequestLogs(t.postline.db, days, new Date(Date.now() + (days - 1) * DAY)), 0);
    assert.equal((await t.resend.logs.get(kept.id)).error, null);

    const purged = await purgeRequestLogs(t.postline.db, days, new Date(Date.now() + (days + 1) * DAY));
    assert.ok(purged > 10, `purged ${purged}`);
    assert.equal((await t.resend.logs.get(kept.id)).error?.statusCode, 404);
  });
});
