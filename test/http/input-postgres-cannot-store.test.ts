// Input PostgreSQL cannot store, and URLs Fastify cannot route, as a client may send them: a NUL
// in a path parameter or query, a lone UTF-16 surrogate in valid JSON, percent-encoding that is
// not UTF-8, a path parameter over 1,000 characters, a URL over 16 KB. Each answer is 4xx in
// Resend's shape `{statusCode, message, name}`, naming what was wrong, and stores nothing.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { within } from '../support/eventually.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const UUID = '6f1f4a3e-9d0c-4b6e-8a57-2b1a1c2d3e4f';

function assertResendError(res: { status: number; body: any }, status: number, message?: RegExp): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body).sort(), ['message', 'name', 'statusCode'], JSON.stringify(res.body));
  assert.equal(res.body.statusCode, status);
  if (message) assert.match(res.body.message, message);
}

describe('HTTP: input PostgreSQL cannot store and URLs that do not route get Resend-shaped 4xx', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t?.stop());

  it('refuses a NUL in a path parameter with 422 naming the parameter, on every route alike', async () => {
    const cases: [string, string][] = [
      ['GET', '/templates/%00'],
      ['DELETE', '/templates/%00'],
      ['POST', '/templates/%00/publish'],
      ['POST', '/templates/%00/duplicate'],
      ['GET', '/events/%00'],
      ['PATCH', '/events/%00'],
      ['DELETE', '/events/%00'],
      ['GET', `/templates/${UUID}%00`],
      ['GET', '/contacts/%00'],
      ['GET', '/emails/a%00b'],
    ];
    for (const [method, path] of cases) {
      const res = await rawRequest(t, method, path, method === 'PATCH' ? { body: {} } : {});
      assertResendError(res, 422, /^The `\w+` path parameter must not contain NUL/);
      assert.equal(res.body.name, 'invalid_parameter', `${method} ${path}`);
    }
  });

  it('refuses a NUL in a query parameter with 422 naming it', async () => {
    const res = await rawRequest(t, 'GET', '/emails?after=%00');
    assertResendError(res, 422, /^The `after` query parameter/);
  });

  it('refuses lone surrogates in valid JSON with 422 naming the field, and stores nothing', async () => {
    const property = await rawRequest(t, 'POST', '/contact-properties', { body: '{"key":"nickname","type":"string","fallback_value":"\\ud800x"}' });
    assertResendError(property, 422, /^The `fallback_value` field must not contain NUL \(\\u0000\) or unpaired UTF-16 surrogate/);
    const schemaKey = await rawRequest(t, 'POST', '/events', { body: '{"name":"signed.up","schema":{"\\ud800":"string"}}' });
    assertResendError(schemaKey, 422, /^The `schema \(a key\)` field/);
    const contact = await rawRequest(t, 'POST', '/contacts', { body: '{"email":"lone@example.org","properties":{"nickname":"\\udc00"}}' });
    assertResendError(contact, 422, /^The `properties.nickname` field/);
    const inArray = await rawRequest(t, 'POST', '/emails', { body: '{"from":"a@b.test","to":["x@example.org","\\ud83d"],"subject":"s","text":"t"}' });
    assertResendError(inArray, 422, /^The `to\[1\]` field/);
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM contact_properties WHERE key = 'nickname'`))[0].n, 0);
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM contacts`))[0].n, 0);
    assert.equal((await t.sql(`SELECT count(*)::int AS n FROM event_definitions`))[0].n, 0);
  });

  it('keeps a surrogate pair, which is one character, and an escaped backslash before u0000', async () => {
    const res = await rawRequest(t, 'POST', '/contact-properties', { body: '{"key":"mood","type":"string","fallback_value":"\\ud83d\\ude00 \\\\u0000"}' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const stored = await t.sql(`SELECT fallback_value FROM contact_properties WHERE key = 'mood'`);
    assert.deepEqual(stored[0].fallback_value, '😀 \\u0000');
  });

  it('takes percent-encoding that is not UTF-8 as literal text: a malformed id, or not found, in Resend shape', async () => {
    assertResendError(await rawRequest(t, 'GET', '/emails/%FF%FE'), 422, /^The `id` must be a valid UUID\.$/);
    assertResendError(await rawRequest(t, 'GET', '/contacts/%FF%FE@example.org'), 404);
  });

  it('answers a path parameter over 1,000 characters with 414 in Resend shape', async () => {
    assertResendError(await rawRequest(t, 'GET', `/emails/${'a'.repeat(1001)}`), 414, /longer than 1000 characters/);
  });

  it('answers a URL over 16 KB with 431 in Resend shape', async () => {
    const url = new URL(t.url);
    const socket = net.connect(Number(url.port), url.hostname, () => {
      socket.write(`GET /emails?q=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    });
    const answered = new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk;
      });
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    // The server closes the connection after its answer.
    const reply = await within(answered, 10_000, 'the answer to an over-long URL and the connection closed').finally(() => socket.destroy());
    const [head, body] = reply.split('\r\n\r\n');
    assert.match(head!, /^HTTP\/1\.1 431 /);
    assertResendError({ status: 431, body: JSON.parse(body!) }, 431, /16 KB/);
  });

  it('finds a contact whose address holds a literal %, as the SDK sends it unencoded', async () => {
    const created = await t.resend.contacts.create({ email: 'per%cent@example.org' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const got = await t.resend.contacts.get({ email: 'per%cent@example.org' });
    assert.equal(got.error, null, JSON.stringify(got.error));
    assert.equal(got.data?.email, 'per%cent@example.org');
  });

  it('still serves after all of it', async () => {
    assert.equal((await rawRequest(t, 'GET', '/api-keys')).status, 200);
  });
});
