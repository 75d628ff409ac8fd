// Shared by the delivery tests: a Postline with a verified sending domain, waiting on the
// public API, and (from test/support) recipient domains' MX and DKIM verification of what a
// sink received.
import assert from 'node:assert/strict';
import { verifyDkim } from '../support/dkim.js';
import { createVerifiedDomain, publishMx } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import { eventually } from '../support/eventually.js';

export const SENDER_DOMAIN = 'sender.test';
export const FROM = `Postline Tests <hello@${SENDER_DOMAIN}>`;

/** A Postline whose account has the verified domain sender.test. */
export async function startDeliveryTest(env: Record<string, string> = {}): Promise<TestPostline> {
  const t = await startTestPostline({ env });
  await createVerifiedDomain(t, SENDER_DOMAIN);
  return t;
}

export async function send(t: TestPostline, payload: Record<string, unknown>): Promise<string> {
  const { data, error } = await t.resend.emails.send({ from: FROM, subject: 'Hello', html: '<p>Hello there</p>', ...payload } as any);
  assert.equal(error, null, JSON.stringify(error));
  return data!.id;
}

export { eventually, publishMx, verifyDkim };

/** Waits until GET /emails/:id reports `lastEvent`. */
export async function waitForLastEvent(t: TestPostline, id: string, lastEvent: string, timeoutMs = 15_000): Promise<void> {
  let seen: string | undefined;
  await eventually(
    async () => {
      const { data } = await t.resend.emails.get(id);
      seen = data?.last_event;
      return seen === lastEvent;
    },
    timeoutMs,
    `last_event ${lastEvent} of ${id}`,
  ).catch((err) => {
    throw new Error(`${err.message} (last seen: ${seen})`);
  });
}

/** The email's recorded events, oldest first. */
export async function eventsOf(t: TestPostline, emailId: string): Promise<{ type: string; data: any }[]> {
  return t.sql(`SELECT type, data FROM events WHERE email_id = $1 ORDER BY id`, [emailId]);
}

export async function deliveriesOf(t: TestPostline, emailId: string): Promise<any[]> {
  return t.sql(`SELECT recipient, status, attempts, last_response FROM deliveries WHERE email_id = $1 ORDER BY recipient`, [emailId]);
}
