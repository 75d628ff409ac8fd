// Where the key that seals stored secrets comes from: POSTLINE_SECRET_KEY, or the file
// POSTLINE_SECRET_KEY_FILE names; on a laptop with the embedded database, a key Postline makes
// in its data directory at first start (mode 0600). With DATABASE_URL the operator must give one:
// every node of the cluster needs the same key, and a key made by one node would lock the others
// out. A missing or malformed key refuses the start, naming the variable.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config-readers.js';
import { type EncryptionKey, encryptionKey, SecretBox } from './secret-box.js';

interface KeySettings {
  databaseUrl: string | undefined;
  dataDir: string;
  secretKey: string | undefined;
  secretKeyFile: string | undefined;
  secretKeyPrevious: string[];
}

const EMBEDDED_KEY_FILE = 'secret.key';

export function loadSecretBox(settings: KeySettings): SecretBox {
  const current = parseKey(currentKeyText(settings), settings.secretKeyFile ? 'POSTLINE_SECRET_KEY_FILE' : 'POSTLINE_SECRET_KEY');
  const previous = settings.secretKeyPrevious.map((text) => parseKey(text, 'POSTLINE_SECRET_KEY_PREVIOUS'));
  return new SecretBox(current, previous);
}

function currentKeyText(settings: KeySettings): string {
  if (settings.secretKey && settings.secretKeyFile) throw new ConfigError('set POSTLINE_SECRET_KEY or POSTLINE_SECRET_KEY_FILE, not both');
  if (settings.secretKey) return settings.secretKey;
  if (settings.secretKeyFile) {
    try {
      return fs.readFileSync(settings.secretKeyFile, 'utf8').trim();
    } catch (err) {
      throw new ConfigError(`POSTLINE_SECRET_KEY_FILE: ${(err as Error).message}`);
    }
  }
  if (settings.databaseUrl) {
    throw new ConfigError(
      'POSTLINE_SECRET_KEY (or POSTLINE_SECRET_KEY_FILE) must be set with DATABASE_URL: it seals the secrets stored in the database, and every node needs the same one. Make one with `openssl rand -base64 32`.',
    );
  }
  return embeddedKey(settings.dataDir);
}

/** The embedded database's key, made beside it at first start; readable by its owner only. */
function embeddedKey(dataDir: string): string {
  const file = path.join(dataDir, EMBEDDED_KEY_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, `${crypto.randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return fs.readFileSync(file, 'utf8').trim();
}

/** 32 bytes as base64 (44 characters, standard or URL alphabet) or hex (64 characters). */
function parseKey(text: string, variable: string): EncryptionKey {
  const value = text.trim();
  const bytes = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(value) ? Buffer.from(value, 'base64') : undefined;
  if (bytes?.length !== 32) {
    throw new ConfigError(`${variable} must be 32 bytes in base64 or hex (make one with \`openssl rand -base64 32\`)`);
  }
  return encryptionKey(bytes);
}
