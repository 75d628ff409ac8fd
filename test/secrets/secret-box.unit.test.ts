// Sealed secrets (src/secrets/secret-box.ts): what goes in comes out with the key that sealed it,
// or with it among the previous keys during a rotation; with any other key, or altered, or moved
// to another kind of secret, it does not open at all.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it } from 'node:test';
import { encryptionKey, isSealed, keyIdOf, SecretBox, SecretKeyError } from '../../src/secrets/secret-box.js';

const key = () => encryptionKey(crypto.randomBytes(32));

describe('sealed secrets', () => {
  const current = key();
  const box = new SecretBox(current);
  const pem = crypto.generateKeyPairSync('rsa', {
    modulusLength: 1024,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;

  it('opens what it sealed, and the sealed form shows nothing of it', () => {
    const sealed = box.seal(pem, 'dkim-private-key');
    assert.ok(isSealed(sealed));
    assert.equal(keyIdOf(sealed), current.id);
    assert.ok(!sealed.includes('PRIVATE KEY'));
    assert.equal(box.open(sealed, 'dkim-private-key').toString(), pem);
    assert.notEqual(box.seal(pem, 'dkim-private-key'), sealed, 'a data key and nonce of its own each time');
  });

  it('refuses another key, an altered value, and another kind of secret', () => {
    const sealed = box.seal('whsec_abc', 'webhook-signing-secret');
    assert.throws(() => new SecretBox(key()).open(sealed, 'webhook-signing-secret'), SecretKeyError);
    const parts = sealed.split('.');
    const data = Buffer.from(parts[5]!, 'base64url');
    data[0] = data[0]! ^ 1;
    parts[5] = data.toString('base64url');
    assert.throws(() => box.open(parts.join('.'), 'webhook-signing-secret'), /does not open with its key/);
    assert.throws(() => box.open(sealed, 'dkim-private-key'), /does not open with its key/);
    assert.throws(() => box.open('not sealed', 'dkim-private-key'), /not a sealed secret/);
  });

  it('re-wraps under a new key without touching the content; the old key opens until then', () => {
    const sealed = box.seal('the secret', 'url-signing-secret');
    const next = key();
    const rotating = new SecretBox(next, [current]);
    assert.equal(rotating.open(sealed, 'url-signing-secret').toString(), 'the secret', 'the previous key still opens');
    const rewrapped = rotating.rewrap(sealed, 'url-signing-secret');
    assert.equal(keyIdOf(rewrapped), next.id);
    assert.equal(rewrapped.split('.').slice(4).join('.'), sealed.split('.').slice(4).join('.'), 'the content is the same bytes');
    assert.equal(new SecretBox(next).open(rewrapped, 'url-signing-secret').toString(), 'the secret');
    assert.equal(rotating.rewrap(rewrapped, 'url-signing-secret'), rewrapped, 'already under the current key');
  });

  it('names keys by an id that does not reveal them', () => {
    const bytes = crypto.randomBytes(32);
    assert.equal(encryptionKey(bytes).id, encryptionKey(Buffer.from(bytes)).id);
    assert.notEqual(encryptionKey(bytes).id, key().id);
    assert.throws(() => encryptionKey(crypto.randomBytes(16)), /32 bytes/);
  });
});
