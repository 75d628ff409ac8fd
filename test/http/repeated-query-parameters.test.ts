// A query parameter given more than once (`?endpoint=a&endpoint=b`), found by the route
// fuzzer: GET /logs answered 500 (its filter met an array where it reads a string). Every
// route now refuses it alike, 422 in Resend's shape naming the parameter; the SDK never sends
// one (it joins lists with commas), and a single value still works.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('HTTP: a query parameter given more than once', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t?.stop());

  it('is refused with 422 naming it, on every route alike', async () => {
    for (const path of ['/logs?endpoint=/emails&endpoint=/domains', '/emails?limit=1&limit=2', '/emails?subject=a&subject=b', '/contacts?search=a&search=b']) {
      const res = await rawRequest(t, 'GET', path);
      assert.equal(res.status, 422, `${path}: ${JSON.stringify(res.body)}`);
      const name = new URLSearchParams(path.split('?')[1]).keys().next().value;
      assert.deepEqual(res.body, { statusCode: 422, message: `The \`${name}\` query parameter must be given once.`, name: 'invalid_parameter' });
    }
  });

  it('still filters with each given once', async () => {
    const res = await rawRequest(t, 'GET', '/logs?endpoint=/emails&limit=5');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.object, 'list');
    const listed = await t.resend.emails.list({ limit: 1 });
    assert.equal(listed.error, null, JSON.stringify(listed.error));
  });
});
