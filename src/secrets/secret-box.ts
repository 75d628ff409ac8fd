// Sealing the secrets Postline keeps in its database (DKIM private keys, webhook signing
// secrets, the URL-signing secret), so a dump of the database holds none of them in a usable
// form. Envelope encryption: each secret gets a data key of its own; the secret is encrypted
// with it (AES-256-GCM) and the data key with the key-encryption key (AES-256-GCM), which never
// touches the database (POSTLINE_SECRET_KEY, secret-key.ts). A sealed value names the key that
// wrapped it by a short id, so a rotation only re-wraps data keys (rewrap), and a node holding
// the old and the new key opens either during one.
//
//   plsec1.<key id>.<wrapped data key>.<nonce>.<ciphertext with tag>      (base64url parts)
//
// The value's kind is bound to it as associated data (`purpose`): a sealed webhook secret
// cannot be moved into a DKIM key's column and opened there.
import crypto from 'node:crypto';

const PREFIX = 'plsec1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A key-encryption key: 32 bytes, with the id sealed values name it by. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/** Why a sealed value could not be opened: the key is missing, or it was altered. Never a half-open value. */
export class SecretKeyError extends Error {}

export function encryptionKey(key: Buffer): EncryptionKey {
  if (key.length !== 32) throw new SecretKeyError('a secret key is 32 bytes');
  // An id derived from the key: it says which key a value needs without saying anything about the key.
  const id = crypto.createHmac('sha256', key).update('postline secret key id').digest('base64url').slice(0, 11);
  return { id, key };
}

export function isSealed(value: string): boolean {
  return value.startsWith(`${PREFIX}.`);
}

/** The id of the key a sealed value was wrapped with. */
export function keyIdOf(sealed: string): string {
  return sealed.split('.')[1] ?? '';
}

export class SecretBox {
  private byId: Map<string, EncryptionKey>;

  /** `current` seals; `current` and `previous` open (previous: the keys being rotated away from). */
  constructor(
    readonly current: EncryptionKey,
    readonly previous: EncryptionKey[] = [],
  ) {
    this.byId = new Map([current, ...previous].map((k) => [k.id, k]));
  }

  get keyIds(): string[] {
    return [...this.byId.keys()];
  }

  seal(plaintext: Buffer | string, purpose: string): string {
    const dataKey = crypto.randomBytes(32);
    const wrapped = encrypt(this.current.key, dataKey, `data key of ${purpose}`);
    const content = encrypt(dataKey, Buffer.from(plaintext), purpose);
    return [PREFIX, this.current.id, wrapped, content].join('.');
  }

  open(sealed: string, purpose: string): Buffer {
    const [prefix, id, wrappedNonce, wrappedData, nonce, data] = sealed.split('.');
    if (prefix !== PREFIX || !id || !wrappedNonce || !wrappedData || !nonce || !data) throw new SecretKeyError('not a sealed secret');
    const key = this.byId.get(id);
    if (!key) throw new SecretKeyError(`this secret is sealed with key ${id}, which this node does not have`);
    const dataKey = decrypt(key.key, `${wrappedNonce}.${wrappedData}`, `data key of ${purpose}`);
    return decrypt(dataKey, `${nonce}.${data}`, purpose);
  }

  /** The same secret with its data key wrapped by the current key (the content is not touched). */
  rewrap(sealed: string, purpose: string): string {
    const [, id, wrappedNonce, wrappedData, nonce, data] = sealed.split('.');
    if (id === this.current.id) return sealed;
    const key = this.byId.get(id!);
    if (!key) throw new SecretKeyError(`this secret is sealed with key ${id}, which this node does not have`);
    const dataKey = decrypt(key.key, `${wrappedNonce}.${wrappedData}`, `data key of ${purpose}`);
    return [PREFIX, this.current.id, encrypt(this.current.key, dataKey, `data key of ${purpose}`), `${nonce}.${data}`].join('.');
  }
}

/** `<nonce>.<ciphertext and tag>`, base64url. */
function encrypt(key: Buffer, plaintext: Buffer, purpose: string): string {
  const nonce = crypto.randomBytes(NONCE_BYTES);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(purpose));
  const data = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `${nonce.toString('base64url')}.${data.toString('base64url')}`;
}

function decrypt(key: Buffer, sealed: string, purpose: string): Buffer {
  const [nonce, data] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!nonce || !data || nonce.length !== NONCE_BYTES || data.length < TAG_BYTES) throw new SecretKeyError('a sealed secret is damaged');
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(data.subarray(0, data.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SecretKeyError('a sealed secret does not open with its key: the key is wrong or the value was altered');
  }
}
