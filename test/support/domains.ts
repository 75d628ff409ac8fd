// Creates a domain through the API, publishes the records it asks for on the test DNS
// server, and verifies it: what a user does in their DNS provider, on loopback. Also publishes
// recipient domains' MX hosts.
import assert from 'node:assert/strict';
import type { TestPostline } from './postline.js';

export interface PublishedRecord {
  record: string;
  name: string;
  type: string;
  value: string;
  priority?: number;
}

/** Puts each record on the test DNS server under its full name. */
export function publishRecords(t: Pick<TestPostline, 'dns'>, domain: string, records: PublishedRecord[]): void {
  for (const r of records) {
    const name = r.name === domain ? domain : `${r.name}.${domain}`;
    if (r.type === 'TXT') t.dns.set(name, { TXT: [r.value] });
    if (r.type === 'MX') t.dns.set(name, { MX: [{ exchange: r.value, priority: r.priority ?? 10 }] });
  }
}

/**
 * Publishes `domain` with MX records, each host with its A address when given; by default one
 * MX host, mx.<domain>, at 127.0.0.1 (where the test sink listens).
 */
export function publishMx(
  t: Pick<TestPostline, 'dns'>,
  domain: string,
  hosts: { name: string; priority: number; address?: string }[] = [{ name: `mx.${domain}`, priority: 10, address: '127.0.0.1' }],
): void {
  t.dns.set(domain, { MX: hosts.map((h) => ({ exchange: h.name, priority: h.priority })) });
  for (const h of hosts) if (h.address) t.dns.set(h.name, { A: [h.address] });
}

export async function createVerifiedDomain(
  t: Pick<TestPostline, 'dns' | 'resend'>,
  name: string,
  options: { receiving?: boolean } = {},
): Promise<{ id: string; name: string }> {
  const created = await t.resend.domains.create({
    name,
    ...(options.receiving ? { capabilities: { receiving: 'enabled' } } : {}),
  } as any);
  assert.equal(created.error, null, JSON.stringify(created.error));
  publishRecords(t, name, created.data!.records as PublishedRecord[]);
  const verified = await t.resend.domains.verify(created.data!.id);
  assert.equal(verified.error, null, JSON.stringify(verified.error));
  const domain = await t.resend.domains.get(created.data!.id);
  assert.equal(domain.data?.status, 'verified', JSON.stringify(domain.data?.records));
  return { id: created.data!.id, name };
}
