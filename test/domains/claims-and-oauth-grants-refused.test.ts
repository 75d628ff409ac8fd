// oauthGrants.* through the SDK: Postline does not offer them, and says so
// in Resend's error body (422 validation_error with the way to do it here), never a bare 404.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPostline, type TestPostline } from '../support/postline.js';

describe('OAuth grants: a clear, documented refusal', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t.stop());

  it('answers oauthGrants.list and .revoke with a 422 that points to API keys', async () => {
    for (const { error } of [await t.resend.oauthGrants.list(), await t.resend.oauthGrants.revoke(crypto.randomUUID())]) {
      assert.equal(error?.statusCode, 422);
      assert.equal(error?.name, 'validation_error');
      assert.match(error!.message, /^OAuth grants are not available in Postline: .*POST \/api-keys/);
    }
  });

  it('still needs a full-access API key first', async () => {
    const res = await fetch(`${t.url}/oauth/grants`);
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { name: string }).name, 'missing_api_key');
  });
});
