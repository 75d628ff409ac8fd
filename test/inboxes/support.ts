// Shared by the inbox tests: a Postline with a receiving domain and an inbox on it, remote
// senders whose mail reaches Postline's SMTP port as a remote MTA's would (test/inbound/), and
// their MX pointed at the test sink, where replies sent from the inbox arrive.
import assert from 'node:assert/strict';
import PostalMime from 'postal-mime';
import type { TestPostline } from '../support/postline.js';
import { createVerifiedDomain } from '../support/domains.js';
import { eventually } from '../support/eventually.js';
import { composeMessage, deliverInbound, startInboundTest } from '../inbound/support.js';
import { publishMx } from '../webhooks/support.js';

export async function startInboxTest(env: Record<string, string> = {}): Promise<{ t: TestPostline; inboxId: string }> {
  const t = await startInboundTest(env);
  await createVerifiedDomain(t, 'support.test', { receiving: true });
  publishMx(t, 'remote.test');
  const created = await t.resend.inboxes.create({ emailAddress: 'support@support.test', name: 'Customer support', fromName: 'Support Team' });
  assert.equal(created.error, null, JSON.stringify(created.error));
  return { t, inboxId: created.data!.id };
}

/** Mail from a remote sender to the inbox, composed by nodemailer and handed to Postline's SMTP port. */
export async function receive(t: TestPostline, mail: Parameters<typeof composeMessage>[0] & { from: string }): Promise<void> {
  const raw = await composeMessage({ to: 'support@support.test', text: 'Hello', ...mail });
  const sender = /<([^>]+)>/.exec(mail.from)?.[1] ?? mail.from;
  await deliverInbound(t, raw, { mailFrom: sender, rcptTo: ['support@support.test'] });
}

/** The message the sink received for `to` with this subject, parsed. */
export async function delivered(t: TestPostline, to: string, subject: string) {
  const parsed = async () => {
    for (const m of t.sink.messages.filter((m) => m.to.includes(to))) {
      const email = await PostalMime.parse(m.raw);
      if (email.subject === subject) return email;
    }
    return undefined;
  };
  return eventually(parsed, 15_000, `${subject} delivered to ${to}`);
}
