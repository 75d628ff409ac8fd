// Standard Webhooks / Svix signing (resend-compat-notes §7.3): the signature is
// base64(HMAC-SHA256(base64decode(secret without "whsec_"), "${id}.${timestamp}.${body}")),
// sent as "v1,<sig>"; during a secret rotation both secrets sign, space-separated, and
// verifiers accept either. Headers go out under the svix-* names Resend uses and the
// webhook-* names of the Standard Webhooks spec.
import crypto from 'node:crypto';

function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/** The signature headers of one attempt: `timestamp` is now, in Unix seconds. */
export function signatureHeaders(secrets: string[], id: string, timestamp: number, body: string): Record<string, string> {
  const signature = secrets.map((secret) => `v1,${sign(secret, id, timestamp, body)}`).join(' ');
  const ts = String(timestamp);
  return {
    'svix-id': id,
    'svix-timestamp': ts,
    'svix-signature': signature,
    'webhook-id': id,
    'webhook-timestamp': ts,
    'webhook-signature': signature,
  };
}
