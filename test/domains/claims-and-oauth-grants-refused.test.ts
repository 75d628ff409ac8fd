// domains.claims.* through the SDK: Postline does not offer them, and says so in Resend's error
// body (422 validation_error with the way to do it here), never a bare 404. (OAuth grants are
// implemented: test/accounts/oauth-grants.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestPostline, type TestPostline } from '../support/postline.js';

describe('domain claims: a clear, documented refusal', () => {
  let t: TestPostline;
  before(async () => {
    t = await startTestPostline();
  });
  after(() => t.stop());

  it('answers every domains.claims method with a 422 that says how domains move between accounts', async () => {
    const id = crypto.randomUUID();
    for (const { error } of [
      await t.resend.domains.claims.create({ name: 'taken.test' }),
      await t.resend.domains.claims.get(id),
      await t.resend.domains.claims.verify(id),
    ]) {
      assert.equal(error?.statusCode, 422);
      assert.equal(error?.name, 'validation_error');
      assert.match(error!.message, /^Domain claims are not available in Postline: .*DELETE \/domains\/:id.*POST \/domains/);
    }
  });

  it('still needs a full-access API key first', async () => {
    const res = await fetch(`${t.url}/domains/${crypto.randomUUID()}/claim`);
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { name: string }).name, 'missing_api_key');
  });
});
