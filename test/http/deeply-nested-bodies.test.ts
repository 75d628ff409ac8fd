// JSON bodies nested thousands of levels deep (`[[[[…]]]]`), found by the route fuzzer: POST
// to the unsubscribe link answered 500, the walk for characters PostgreSQL cannot store
// (api/storable.ts) running out of stack. Every route now refuses a body deeper than 64
// levels alike, 422 in Resend's shape, and takes one at the limit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

const UUID = '6f1f4a3e-9d0c-4b6e-8a57-2b1a1c2d3e4f';
const arrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objects = (depth: number, leaf: string) => `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;

describe('HTTP: deeply nested JSON bodies', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t?.stop());

  it('are refused with 422 on every route alike, whatever their leaves', async () => {
    const cases: [string, string, string][] = [
      ['POST', `/unsubscribe/${UUID}/${UUID}/signature`, arrays(100_000)],
      ['POST', '/emails', objects(10_000, '"\\u0000"')],
      ['POST', '/emails/batch', arrays(65)],
      ['PATCH', `/contacts/${UUID}`, objects(65, '1')],
    ];
    for (const [method, path, body] of cases) {
      const res = await rawRequest(t, method, path, { body });
      assert.deepEqual(res.body, { statusCode: 422, message: 'The request body nests deeper than 64 levels.', name: 'validation_error' }, `${method} ${path}`);
      assert.equal(res.status, 422);
    }
  });

  it('are read as usual at 64 levels', async () => {
    const res = await rawRequest(t, 'POST', '/contacts', { body: `{"email":"deep@example.org","properties":${objects(63, '1')}}` });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.doesNotMatch(res.body.message, /nests deeper/);
  });
});
