// A HEAD request the HTTP parser refuses (its URL and headers over 16 KB), found by the route
// fuzzer: the 431 carried the JSON error body, which a HEAD answer must not (RFC 9110 §9.3.2),
// so the client read it as garbage after the answer ("Data after Connection: close"). Now the
// status alone, and GET keeps its Resend-shaped body.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startTestPostline, type TestPostline } from '../support/postline.js';

function request(t: TestPostline, method: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP: a HEAD request the parser refuses', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t?.stop());

  const longPath = `/emails?subject=${'a'.repeat(17 * 1024)}`;

  it('gets 431 without a body', async () => {
    assert.deepEqual(await request(t, 'HEAD', longPath), { status: 431, body: '' });
  });

  it('while GET gets 431 in Resend shape', async () => {
    const res = await request(t, 'GET', longPath);
    assert.equal(res.status, 431);
    assert.deepEqual(JSON.parse(res.body), { statusCode: 431, message: 'The URL and headers together exceed 16 KB.', name: 'validation_error' });
  });
});
