// Shared by the inbound tests: a Postline whose public URL is its real address (so the SDK's
// receiving.forward() can fetch raw.download_url itself), a remote MTA that delivers to
// Postline's SMTP port unauthenticated, and senders whose SPF, DKIM and DMARC records live on
// the test DNS server.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { dkimSign } from 'mailauth';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/processes.js';

export async function startInboundTest(env: Record<string, string> = {}): Promise<TestPostline> {
  const port = await freePort();
  return startTestPostline({ env: { PORT: String(port), POSTLINE_PUBLIC_URL: `http://127.0.0.1:${port}`, ...env } });
}

interface Delivery {
  mailFrom: string;
  rcptTo: string[];
  /** The client's EHLO name. */
  helo?: string;
}

/**
 * Hands a message to Postline as a remote MTA would: unauthenticated, to its SMTP port, with
 * STARTTLS (Postline's certificate is self-signed here). Resolves on 250; rejects with the
 * SMTP error (responseCode, response) otherwise.
 */
export async function deliverInbound(t: TestPostline, raw: Buffer | string, delivery: Delivery): Promise<void> {
  const port = t.postline.smtpPorts.starttls[0];
  assert.ok(port, 'the smtp role listens');
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    name: delivery.helo ?? 'mta.remote.test',
    tls: { rejectUnauthorized: false },
  });
  try {
    await transport.sendMail({ envelope: { from: delivery.mailFrom, to: delivery.rcptTo }, raw });
  } finally {
    transport.close();
  }
}

/** A DKIM key pair, the public half published as `<selector>._domainkey.<domain>`. */
export function publishDkimKey(t: TestPostline, domain: string, selector = 'mail'): string {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  t.dns.set(`${selector}._domainkey.${domain}`, { TXT: [`v=DKIM1; k=rsa; p=${(publicKey as Buffer).toString('base64')}`] });
  return privateKey as string;
}

/** Composes a message with nodemailer and, given a key, DKIM-signs it for `domain`. */
export async function composeMessage(
  mail: ConstructorParameters<typeof MailComposer>[0],
  dkim?: { domain: string; selector?: string; privateKey: string },
): Promise<Buffer> {
  const raw = await new MailComposer(mail).compile().build();
  if (!dkim) return raw;
  // mailauth 4 reads `signatureData` (its typings describe another shape).
  const options = { signatureData: [{ signingDomain: dkim.domain, selector: dkim.selector ?? 'mail', privateKey: dkim.privateKey }] };
  const signed = await dkimSign(raw, options as unknown as Parameters<typeof dkimSign>[1]);
  assert.deepEqual(signed.errors, []);
  assert.match(signed.signatures, /^DKIM-Signature: /);
  return Buffer.concat([Buffer.from(signed.signatures), raw]);
}

export { eventually };
