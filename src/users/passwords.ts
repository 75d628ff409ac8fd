// Passwords of dashboard users, hashed with scrypt (node:crypto; RFC 7914): memory-hard, so a
// stolen table costs an attacker 32 MiB and tens of milliseconds per guess. A stored hash
// carries its parameters, so they can be raised later without invalidating old ones.
import crypto from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(crypto.scrypt) as (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions) => Promise<Buffer>;

// N = 2^15, r = 8: 128 · N · r = 32 MiB per hash (OWASP's scrypt minimum is N = 2^17 with
// r = 8, p = 1 for 128 MiB; 32 MiB keeps two cores responsive under a burst of sign-ins
// while the throttle bounds the rate of guesses).
const PARAMS = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

/** `scrypt$N$r$p$salt$hash`, base64url; a fresh random salt per password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password.normalize('NFC'), salt, KEY_BYTES, { ...PARAMS, maxmem: 256 * PARAMS.N * PARAMS.r });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** Whether `password` matches `stored` (compared in constant time). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const N = Number(n);
  const R = Number(r);
  const actual = await scrypt(password.normalize('NFC'), Buffer.from(salt, 'base64url'), expected.length, {
    N,
    r: R,
    p: Number(p),
    maxmem: 256 * N * R,
  });
  return crypto.timingSafeEqual(actual, expected);
}

// Verified against when the address is unknown, so a wrong address takes as long as a wrong
// password and the answer's timing does not tell which addresses have users.
let decoy: Promise<string> | undefined;
export const decoyHash = () => (decoy ??= hashPassword(crypto.randomBytes(16).toString('hex')));
