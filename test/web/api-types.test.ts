// The dashboard's API types (web/src/api-types.ts) are generated from the OpenAPI document by
// `npm run docs` (scripts/generated-docs.ts), never written by hand: the committed file must be
// what the generator makes of today's routes, and the document it is made from, built without
// a server, must be the one a node in sandbox mode serves at GET /openapi.json (so a route that
// server.ts mounts and the generator's list lacks fails here).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { API_TYPES_FILE, apiTypes, fullOpenApiDocument } from '../../scripts/generated-docs.js';
import { rawRequest, startTestPostline, type TestPostline } from '../support/postline.js';

describe('dashboard API types', () => {
  it(`are ${API_TYPES_FILE}, generated from the OpenAPI document (npm run docs)`, async () => {
    const committed = fs.readFileSync(new URL(`../../${API_TYPES_FILE}`, import.meta.url), 'utf8');
    assert.ok(committed === (await apiTypes()), `${API_TYPES_FILE} is out of date: run \`npm run docs\``);
  });

  describe('the document they are generated from', () => {
    let t: TestPostline;
    before(async () => {
      t = await startTestPostline({ env: { POSTLINE_SANDBOX: 'true' } });
    });
    after(() => t?.stop());

    it('is the one a node in sandbox mode serves at GET /openapi.json', async () => {
      const served = await rawRequest(t, 'GET', '/openapi.json', { auth: null });
      assert.equal(served.status, 200);
      const built = fullOpenApiDocument() as { paths: Record<string, unknown> };
      const missing = Object.keys(served.body.paths).filter((path) => !(path in built.paths));
      assert.deepEqual(
        missing,
        [],
        'paths served but missing from everyRoute() in scripts/generated-docs.ts: list their routes there as server.ts mounts them',
      );
      assert.deepEqual(built, served.body);
    });
  });
});
