// The process's secret box (secret-box.ts): installed once at start from the configured key
// (secret-key.ts) by every entry point that touches stored secrets (server.ts, the worker thread,
// the `postline secrets` command), then used where a secret is written or read. Opened values
// are kept in memory by their sealed form, so a DKIM key or a webhook secret is decrypted once
// per process, never per message.
import { isSealed, type SecretBox, SecretKeyError } from './secret-box.js';

/** What each kind of stored secret is sealed as (bound to it: one cannot stand in for another). */
export type SecretPurpose = 'dkim-private-key' | 'webhook-signing-secret' | 'url-signing-secret' | 'tls-private-key' | 'acme-account-key';

const MAX_OPENED = 10_000;

let box: SecretBox | undefined;
const opened = new Map<string, string>();

export function installSecretBox(secretBox: SecretBox): void {
  box = secretBox;
  opened.clear();
}

function secretBox(): SecretBox {
  if (!box) throw new SecretKeyError('no secret key installed: the process started without loading POSTLINE_SECRET_KEY');
  return box;
}

export function sealSecret(plaintext: string, purpose: SecretPurpose): string {
  return secretBox().seal(plaintext, purpose);
}

/**
 * A stored secret's value. One stored before secrets were sealed (a database of an older
 * version, until the start's sealing pass reaches it: seal-stored.ts) is read as it is.
 */
export function openSecret(stored: string, purpose: SecretPurpose): string {
  if (!isSealed(stored)) return stored;
  const key = `${purpose} ${stored}`;
  let value = opened.get(key);
  if (value === undefined) {
    value = secretBox().open(stored, purpose).toString('utf8');
    if (opened.size >= MAX_OPENED) opened.clear();
    opened.set(key, value);
  }
  return value;
}
