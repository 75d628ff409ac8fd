// Shared by the broadcast tests: a Postline whose account has the verified domain news.test,
// recipients at example.org whose MX is the test sink, and an audience made through the SDK.
import assert from 'node:assert/strict';
import PostalMime from 'postal-mime';
import { createVerifiedDomain } from '../support/domains.js';
import { startTestPostline, type TestPostline } from '../support/postline.js';
import type { Role } from '../../src/config.js';
import { eventually } from '../support/eventually.js';

export const FROM = 'News <news@news.test>';
export const PUBLIC_URL = 'https://mail.postline.test';

export async function startBroadcastTest(env: Record<string, string> = {}, roles?: Role[]): Promise<TestPostline> {
  const t = await startTestPostline({ env: { POSTLINE_PUBLIC_URL: PUBLIC_URL, ...env }, roles });
  await createVerifiedDomain(t, 'news.test');
  t.dns.set('example.org', { MX: [{ exchange: 'mx.example.org', priority: 10 }] });
  t.dns.set('mx.example.org', { A: ['127.0.0.1'] });
  return t;
}

export async function createSegment(t: TestPostline, name = 'Subscribers'): Promise<string> {
  const { data, error } = await t.resend.segments.create({ name });
  assert.equal(error, null, JSON.stringify(error));
  return data!.id;
}

interface NewContact {
  email: string;
  firstName?: string;
  lastName?: string;
  unsubscribed?: boolean;
  properties?: Record<string, string | number | null>;
  topics?: { id: string; subscription: 'opt_in' | 'opt_out' }[];
}

/** Creates the contacts in `segmentId`, a few requests at a time; returns their ids in order. */
export async function createContacts(t: TestPostline, segmentId: string, contacts: NewContact[]): Promise<string[]> {
  const ids: string[] = new Array(contacts.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < contacts.length) {
        const i = next++;
        const { data, error } = await t.resend.contacts.create({ ...contacts[i]!, segments: [{ id: segmentId }] } as any);
        assert.equal(error, null, JSON.stringify(error));
        ids[i] = data!.id;
      }
    }),
  );
  return ids;
}

export { eventually };

export async function waitForStatus(t: TestPostline, id: string, status: string, timeoutMs = 20_000): Promise<void> {
  let seen: string | undefined;
  await eventually(
    async () => {
      seen = (await t.resend.broadcasts.get(id)).data?.status;
      return seen === status;
    },
    timeoutMs,
    `broadcast ${id} ${status}`,
  ).catch((err) => {
    throw new Error(`${err.message} (last seen: ${seen})`);
  });
}

/**
 * Until every email of these broadcasts has an outcome (none queued, deferred or in flight):
 * from then on nothing more of theirs can reach the sink.
 */
export async function untilBroadcastMailDone(t: TestPostline, ...ids: string[]): Promise<void> {
  await eventually(
    async () => {
      const [{ open }] = await t.sql(
        `SELECT count(*)::int AS open FROM deliveries d JOIN emails e ON e.id = d.email_id
          WHERE e.broadcast_id = ANY($1) AND d.status IN ('queued', 'scheduled', 'paused')`,
        [ids],
      );
      return open === 0;
    },
    30_000,
    `every email of broadcast ${ids.join(', ')} done`,
  );
}

/** The messages the sink got for `address`. */
export function messagesTo(t: TestPostline, address: string) {
  return t.sink.messages.filter((m) => m.to.includes(address));
}

export async function parsed(t: TestPostline, address: string) {
  const [message] = messagesTo(t, address);
  assert.ok(message, `nothing arrived for ${address}`);
  return { message, mail: await PostalMime.parse(message.raw) };
}

/** A URL on POSTLINE_PUBLIC_URL requested from this Postline, as a mail client or browser would. */
export function visit(t: TestPostline, url: string, init: RequestInit = {}) {
  assert.ok(url.startsWith(PUBLIC_URL), url);
  return fetch(t.url + url.slice(PUBLIC_URL.length), { redirect: 'manual', ...init });
}
