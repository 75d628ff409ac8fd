import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';
import { inOneWindow } from '../support/rate-window.js';

describe('HTTP conventions', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_RATE_LIMIT: '5' } });
  });
  after(() => t.stop());

  it('answers unknown routes 404 and known routes with another method 405, as JSON errors', async () => {
    const unknown = await rawRequest(t, 'GET', '/nope');
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body, { statusCode: 404, message: 'The requested endpoint does not exist.', name: 'not_found' });
    const wrongMethod = await rawRequest(t, 'PUT', '/api-keys');
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.body.name, 'method_not_allowed');
  });

  it('accepts an empty body with Content-Type: application/json and rejects invalid JSON', async () => {
    const empty = await rawRequest(t, 'GET', '/api-keys');
    assert.equal(empty.status, 200);
    const invalid = await rawRequest(t, 'POST', '/api-keys', { body: '{"name": ' });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.name, 'validation_error');
    const array = await rawRequest(t, 'POST', '/api-keys', { body: '[1,2]' });
    assert.equal(array.status, 422);
  });

  it('rejects a body over the size limit with 413', async () => {
    const huge = await rawRequest(t, 'POST', '/api-keys', { body: JSON.stringify({ name: 'x'.repeat(61 * 1024 * 1024) }) });
    assert.equal(huge.status, 413);
    assert.equal(huge.body.name, 'validation_error');
  });

  it('sends rate-limit headers on every response and 429 past the limit', async () => {
    const responses = await inOneWindow(async () => {
      const got: Awaited<ReturnType<typeof rawRequest>>[] = [];
      for (let i = 0; i < 7; i++) got.push(await rawRequest(t, 'GET', '/api-keys'));
      return got;
    });
    for (const res of responses) {
      assert.equal(res.headers.get('ratelimit-limit'), '5');
      assert.equal(res.headers.get('ratelimit-policy'), '5;w=1');
      assert.ok(res.headers.get('ratelimit-remaining') !== null);
      assert.ok(Number(res.headers.get('ratelimit-reset')) >= 1);
    }
    assert.deepEqual(
      responses.map((r) => r.status),
      [200, 200, 200, 200, 200, 429, 429],
    );
    const last = responses.at(-1);
    assert.equal(last!.body.name, 'rate_limit_exceeded');
    assert.equal(last!.headers.get('retry-after'), '1');
    const error = await rawRequest(t, 'GET', '/nope');
    assert.ok(error.headers.get('ratelimit-limit'));
  });

  it('sends rate-limit headers and a JSON error on responses to missing and unknown keys too', async () => {
    for (const auth of [null, 're_00000000_000000000000000000000000']) {
      const res = await rawRequest(t, 'GET', '/api-keys', { auth });
      assert.equal(res.status, auth === null ? 401 : 403);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(res.headers.get('ratelimit-limit'), '5');
      assert.ok(res.headers.get('ratelimit-remaining') !== null);
    }
  });

  it('throttles requests without a valid key per client address', async () => {
    const statuses = await inOneWindow(async () => {
      const got: number[] = [];
      for (let i = 0; i < 7; i++) got.push((await rawRequest(t, 'GET', '/api-keys', { auth: 're_guessing_000000000000000000000000' })).status);
      return got;
    });
    assert.deepEqual(statuses, [403, 403, 403, 403, 403, 429, 429]);
  });

  it('refuses NUL characters in JSON strings with 422, storing nothing', async () => {
    // A fresh window (waiting for the clock): the bursts above used this one's budget up.
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000) + 20));
    const res = await rawRequest(t, 'POST', '/api-keys', { body: '{"name":"a\\u0000b"}' });
    assert.equal(res.status, 422);
    assert.equal(res.body.name, 'validation_error');
    const escaped = await rawRequest(t, 'POST', '/api-keys', { body: '{"name":"a\\\\u0000b"}' });
    assert.equal(escaped.status, 201, 'an escaped backslash followed by u0000 is ordinary text');
    const names = await t.sql(`SELECT name FROM api_keys WHERE name LIKE 'a%b'`);
    assert.deepEqual(
      names.map((r) => r.name),
      ['a\\u0000b'],
    );
  });
});
