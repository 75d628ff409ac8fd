import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { signatureHeaders } from '../../src/webhooks/signature.js';

// The vector of resend-compat-notes §7.3 (Svix's documentation example).
describe('webhooks: the signer matches the Standard Webhooks test vector', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const body = '{"test": 2432232314}';

  it('produces the documented signature', () => {
    const headers = signatureHeaders([secret], id, 1614265330, body);
    assert.equal(headers['svix-signature'], 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    assert.equal(headers['webhook-signature'], headers['svix-signature']);
    assert.equal(headers['svix-timestamp'], '1614265330');
  });

  it('is accepted by standardwebhooks for a current timestamp', () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = signatureHeaders([secret], id, now, body);
    assert.deepEqual(new Webhook(secret).verify(body, headers), { test: 2432232314 });
    assert.throws(() => new Webhook(secret).verify(body.replace('2', '3'), headers));
  });
});
