// Who may read /metrics, over HTTP: with POSTLINE_METRICS_TOKEN, whoever gives it as a bearer
// token (401 in Resend's error shape otherwise); without it, a client on loopback, but not a
// request that came through a proxy; and with POSTLINE_METRICS=false there is no /metrics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const TOKEN = 'metrics-token-0123456789';

describe('metrics: /metrics with POSTLINE_METRICS_TOKEN', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_METRICS_TOKEN: TOKEN } });
  });
  after(() => t?.stop());

  it('answers 401 without the token, with another, or with an API key', async () => {
    for (const auth of [null, 'wrong-token', t.apiKey]) {
      const res = await rawRequest(t, 'GET', '/metrics', { auth });
      assert.equal(res.status, 401, String(auth));
      assert.deepEqual(res.body, { statusCode: 401, name: 'invalid_metrics_token', message: 'Missing or invalid bearer token for /metrics.' });
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="postline metrics"');
    }
  });

  it('answers 200 with the token, in the text format', async () => {
    const res = await rawRequest(t, 'GET', '/metrics', { auth: TOKEN });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
    assert.match(res.body, /^# HELP postline_emails_accepted_total /m);
    assert.match(res.body, /^postline_emails_accepted_total\{ingress="api"\} 0$/m);
  });
});

describe('metrics: /metrics without a token', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t?.stop());

  it('answers a loopback client', async () => {
    assert.equal((await rawRequest(t, 'GET', '/metrics', { auth: null })).status, 200);
  });

  it('refuses a request forwarded by a proxy on loopback (403), whatever address it names', async () => {
    const forwarded: Record<string, string>[] = [{ 'x-forwarded-for': '203.0.113.9' }, { 'x-forwarded-for': '127.0.0.1' }, { forwarded: 'for=127.0.0.1' }];
    for (const headers of forwarded) {
      const res = await rawRequest(t, 'GET', '/metrics', { auth: null, headers });
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.equal(res.body.name, 'metrics_loopback_only');
    }
  });
});

describe('metrics: POSTLINE_METRICS=false', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline({ env: { POSTLINE_METRICS: 'false' } });
  });
  after(() => t?.stop());

  it('serves no /metrics (404)', async () => {
    const res = await rawRequest(t, 'GET', '/metrics', { auth: null });
    assert.equal(res.status, 404);
    assert.equal(res.body.name, 'not_found');
  });
});
