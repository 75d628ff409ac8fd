// Signed URLs (attachment downloads, tracking links, unsubscribe links, shared emails): HMAC-SHA256 with the
// installation's secret. The secret lives in the database (server_secrets, sealed: secrets/), made by the first
// node that needs it, so every node signs and verifies alike and a restart keeps links working. Each use gets
// its own key derived from the secret and the purpose, so a signature made for one use (a
// tracking link) is worthless for another (an attachment download).
import crypto from 'node:crypto';
import { type JsonSchema, string } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import { openSecret, sealSecret } from '../secrets/keyring.js';

type SigningPurpose = 'attachment-download' | 'received-download' | 'open-tracking' | 'click-tracking' | 'unsubscribe' | 'email-share';

const SECRET_NAME = 'url-signing';
/** 128 bits: far beyond guessing, and short enough for a URL (22 base64url characters). */
const SIGNATURE_BYTES = 16;

const secrets = new WeakMap<Queryable, Promise<Buffer>>();

/** The installation's secret, read once per process (per database handle). */
function serverSecret(db: Queryable): Promise<Buffer> {
  let secret = secrets.get(db);
  if (!secret) {
    secret = (async () => {
      const made = sealSecret(crypto.randomBytes(32).toString('base64'), 'url-signing-secret');
      await db.query(`INSERT INTO server_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [SECRET_NAME, made]);
      const row = await db.one<{ secret: string }>(`SELECT secret FROM server_secrets WHERE name = $1`, [SECRET_NAME]);
      return Buffer.from(openSecret(row!.secret, 'url-signing-secret'), 'base64');
    })();
    secrets.set(db, secret);
    secret.catch(() => secrets.delete(db)); // a failed read is retried by the next caller
  }
  return secret;
}

/** The query of an expiring download URL (the attachment and received-mail downloads), for their routes' docs. */
export const SIGNED_URL_QUERY: Record<string, JsonSchema> = {
  expires: string({ pattern: '^\\d{1,12}$', description: 'When the URL stops working, Unix seconds.' }),
  signature: string({ pattern: `^[A-Za-z0-9_-]{${Math.ceil((SIGNATURE_BYTES * 4) / 3)}}$` }),
};

export class UrlSigner {
  constructor(private readonly key: Buffer) {}

  /** The signature of `parts` (JSON-encoded, so no two lists of parts sign alike), base64url. */
  sign(...parts: string[]): string {
    return crypto.createHmac('sha256', this.key).update(JSON.stringify(parts)).digest().subarray(0, SIGNATURE_BYTES).toString('base64url');
  }

  /** Constant-time check of a signature made by sign(...parts). */
  verify(signature: string, ...parts: string[]): boolean {
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== SIGNATURE_BYTES || given.toString('base64url') !== signature) return false;
    return crypto.timingSafeEqual(given, Buffer.from(this.sign(...parts), 'base64url'));
  }
}

/** A signer for one purpose, its key derived from the installation's secret. */
export async function urlSigner(db: Queryable, purpose: SigningPurpose): Promise<UrlSigner> {
  const secret = await serverSecret(db);
  return new UrlSigner(crypto.createHmac('sha256', secret).update(`postline ${purpose} v1`).digest());
}

/** Lazily made signers for a process: the first call reads the secret, later calls reuse it. */
export function signers(db: Queryable): (purpose: SigningPurpose) => Promise<UrlSigner> {
  const made = new Map<SigningPurpose, Promise<UrlSigner>>();
  return (purpose) => {
    let signer = made.get(purpose);
    if (!signer) {
      signer = urlSigner(db, purpose);
      made.set(purpose, signer);
      signer.catch(() => made.delete(purpose));
    }
    return signer;
  };
}
