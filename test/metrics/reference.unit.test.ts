// The metrics' reference page is generated from their definitions (npm run docs), so a metric
// added, renamed or re-explained in code fails here until the page says the same; and who may
// read /metrics is decided by the connection, never by what a client writes in a header.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { generatedPart } from '../../scripts/generated-docs.js';
import { registry } from '../../src/metrics/definitions.js';
import { metricsTable } from '../../src/metrics/reference.js';
import { metricsRefusal } from '../../src/metrics/routes.js';

describe('unit: metrics reference', () => {
  it('is docs/reference/metrics.md, generated from the definitions (npm run docs)', () => {
    const page = fs.readFileSync(new URL('../../docs/reference/metrics.md', import.meta.url), 'utf8');
    assert.equal(generatedPart(page, 'metrics-table'), metricsTable(), 'docs/reference/metrics.md is out of date: run `npm run docs`');
  });

  it('names every metric postline_…, with help text', () => {
    const metrics = registry.getMetricsAsArray();
    assert.ok(metrics.length >= 10);
    for (const m of metrics) {
      assert.match(m.name, /^postline_[a-z_]+$/);
      assert.ok(m.help.length > 20, m.name);
    }
  });
});

describe('unit: who may read /metrics', () => {
  const request = (ip: string, headers: Record<string, string> = {}) => ({ ip, headers });

  it('without a token: loopback clients, IPv4, IPv6 and IPv4 inside IPv6', () => {
    for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) assert.equal(metricsRefusal(undefined, request(ip)), undefined, ip);
  });

  it('without a token: refuses other addresses (403), and any request that came through a proxy', () => {
    for (const ip of ['10.0.0.5', '192.168.1.2', '203.0.113.7', '::ffff:10.0.0.1', 'fd00::1']) {
      assert.equal(metricsRefusal(undefined, request(ip))?.statusCode, 403, ip);
    }
    assert.equal(metricsRefusal(undefined, request('127.0.0.1', { 'x-forwarded-for': '127.0.0.1' }))?.statusCode, 403);
    assert.equal(metricsRefusal(undefined, request('127.0.0.1', { forwarded: 'for=127.0.0.1' }))?.statusCode, 403);
  });

  it('with a token: it alone decides, from any address (401 without it or with another)', () => {
    const token = 's3cret-token';
    assert.equal(metricsRefusal(token, request('203.0.113.7', { authorization: `Bearer ${token}` })), undefined);
    assert.equal(metricsRefusal(token, request('203.0.113.7', { authorization: `bearer  ${token} ` })), undefined);
    const refusals: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong' },
      { authorization: token },
      { authorization: `Basic ${token}` },
      { authorization: `Bearer ${token}x` },
    ];
    for (const headers of refusals) {
      const refusal = metricsRefusal(token, request('127.0.0.1', headers));
      assert.deepEqual(refusal?.toBody(), { statusCode: 401, name: 'invalid_metrics_token', message: 'Missing or invalid bearer token for /metrics.' });
    }
  });
});
