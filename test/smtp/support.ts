// Shared by the SMTP tests: a Postline with a verified sending domain and a recipient domain
// whose MX is the sink, nodemailer transports on its STARTTLS and implicit-TLS ports, and raw
// sessions (test/support/smtp-session.ts) opened and authenticated for what a well-behaved
// client never sends.
import assert from 'node:assert/strict';
import nodemailer from 'nodemailer';
import { createVerifiedDomain } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { RawSession } from '../support/smtp-session.js';

export const SENDER_DOMAIN = 'sender.test';
export const FROM = `Sender <hello@${SENDER_DOMAIN}>`;
/** Recipients here are delivered to the test's MX sink. */
const RECIPIENT_DOMAIN = 'example.net';

export async function startSmtpTest(env: Record<string, string> = {}): Promise<TestPostline> {
  const t = await startTestPostline({ env });
  await createVerifiedDomain(t, SENDER_DOMAIN);
  t.dns.set(RECIPIENT_DOMAIN, { MX: [{ exchange: `mx.${RECIPIENT_DOMAIN}`, priority: 10 }] });
  t.dns.set(`mx.${RECIPIENT_DOMAIN}`, { A: ['127.0.0.1'] });
  return t;
}

export const starttlsPort = (t: TestPostline) => t.postline.smtpPorts.starttls[0]!;
export const implicitPort = (t: TestPostline) => t.postline.smtpPorts.implicit[0]!;

/** nodemailer with the API key as password, on the STARTTLS port (default) or the implicit-TLS port. */
export function transport(t: TestPostline, options: { implicit?: boolean; user?: string; pass?: string } = {}) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port: options.implicit ? implicitPort(t) : starttlsPort(t),
    secure: !!options.implicit,
    requireTLS: !options.implicit,
    auth: { user: options.user ?? 'resend', pass: options.pass ?? t.apiKey },
    tls: { rejectUnauthorized: false }, // the self-signed certificate
  });
}

/** The email id in `250 2.0.0 Ok: queued as <id>`. */
export function queuedId(response: string): string {
  const match = /queued as ([0-9a-f-]{36})/.exec(response);
  assert.ok(match, `no email id in ${JSON.stringify(response)}`);
  return match[1]!;
}

export { RawSession };

/** A session on the STARTTLS port, greeted, upgraded and (with a token) authenticated. */
export async function openSession(t: TestPostline, options: { token?: string; tls?: boolean } = {}): Promise<RawSession> {
  const session = await RawSession.connect(starttlsPort(t));
  assert.match(await session.reply(), /^220 mta\.postline\.test ESMTP/);
  assert.match(await session.command('EHLO client.test'), /^250/);
  if (options.tls === false) return session;
  await session.startTls();
  if (options.token) assert.match(await session.login(options.token), /^235 /);
  return session;
}

/** A plain RFC 5322 message. */
export function message(headers: Record<string, string>, body = 'Hello there\r\n'): string {
  return `${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n${body}`;
}

/** MAIL, RCPT(s), DATA, the message and the final dot; returns the reply to the dot (or the first refusal). */
export async function sendRaw(session: RawSession, rcpt: string[], data: string | Buffer, mailFrom = `hello@${SENDER_DOMAIN}`): Promise<string> {
  const mail = await session.command(`MAIL FROM:<${mailFrom}>`);
  if (!mail.startsWith('250')) return mail;
  for (const r of rcpt) {
    const reply = await session.command(`RCPT TO:<${r}>`);
    if (!reply.startsWith('250')) return reply;
  }
  const go = await session.command('DATA');
  if (!go.startsWith('354')) return go;
  session.write(data);
  session.write(typeof data === 'string' && !data.endsWith('\r\n') ? '\r\n.\r\n' : '.\r\n');
  return session.reply();
}

/** Emails of the account with source 'smtp', newest first. */
export async function smtpEmails(t: TestPostline): Promise<any[]> {
  return t.sql(`SELECT id, subject, from_address, to_addresses, cc, bcc, mime, message_id FROM emails WHERE source = 'smtp' ORDER BY created_at DESC`);
}
