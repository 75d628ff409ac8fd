// Shared by the delivery tests: a Postline with a verified sending domain, recipient domains
// published on the test DNS server, waiting on the public API, and DKIM verification of what
// a sink received (mailauth, resolving through the same test DNS server).
import assert from 'node:assert/strict';
import dns from 'node:dns';
import { authenticate } from 'mailauth';
import { createVerifiedDomain } from '../support/domains.js';
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

/** Publishes `domain` with MX records, each MX host with the given A address. */
export function publishMx(t: TestPostline, domain: string, hosts: { name: string; priority: number; address?: string }[]): void {
  t.dns.set(domain, { MX: hosts.map((h) => ({ exchange: h.name, priority: h.priority })) });
  for (const h of hosts) if (h.address) t.dns.set(h.name, { A: [h.address] });
}

export async function send(t: TestPostline, payload: Record<string, unknown>): Promise<string> {
  const { data, error } = await t.resend.emails.send({ from: FROM, subject: 'Hello', html: '<p>Hello there</p>', ...payload } as any);
  assert.equal(error, null, JSON.stringify(error));
  return data!.id;
}

export { eventually };

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

/** DKIM result of a received message, checked against the keys on the test DNS server. */
export async function verifyDkim(t: TestPostline, raw: Buffer): Promise<{ result: string; domain: string }[]> {
  const resolver = new dns.promises.Resolver();
  resolver.setServers([t.dns.address]);
  const { dkim } = await authenticate(raw, {
    resolver: (name: string, rr: string) => resolver.resolve(name, rr as 'TXT') as Promise<string[][]>,
    ip: '127.0.0.1',
    helo: 'mta.postline.test',
    sender: `bounces@${SENDER_DOMAIN}`,
    mta: 'mx.test',
    disableArc: true,
    disableBimi: true,
    disableDmarc: true,
  });
  return dkim.results.map((r: any) => ({ result: r.status.result, domain: r.signingDomain }));
}
