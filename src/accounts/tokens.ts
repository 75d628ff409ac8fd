// API key tokens: `re_` + 8 + `_` + 24 alphanumerics, the shape Resend's SDK and log
// redaction expect. Only the SHA-256 of a token is stored; the token is shown once.
import crypto from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomAlnum(length: number): string {
  const bytes = crypto.randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length; i++) {
    const b = bytes[i % bytes.length]!;
    if (b < 248)
      out += ALPHABET[b % 62]; // 248 = 4 × 62: no modulo bias
    else if (i >= bytes.length) return out + randomAlnum(length - out.length);
  }
  return out;
}

export const newToken = () => `re_${randomAlnum(8)}_${randomAlnum(24)}`;
export const hashToken = (token: string) => crypto.createHash('sha256').update(token).digest();
