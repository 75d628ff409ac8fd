// The DNS a bench needs, on loopback: the sending domain's records (so POST /domains/:id/verify
// succeeds, as a user's DNS provider would make it) and the recipient domain's MX → 127.0.0.1.
import { TestDnsServer } from '../../test/support/dns-server.js';
import { publishRecords, type PublishedRecord } from '../../test/support/domains.js';
import { postJson, getJson } from './http-load.js';

export const SENDING_DOMAIN = 'bench.postline-bench.test';
export const RECIPIENT_DOMAIN = 'sink.postline-bench.test';

export async function startBenchDns(): Promise<TestDnsServer> {
  const dns = await new TestDnsServer().start();
  dns.ttl = 3600; // the resolver caches MX/A for the whole run, as with any real domain
  dns.set(RECIPIENT_DOMAIN, { MX: [{ exchange: `mx.${RECIPIENT_DOMAIN}`, priority: 10 }] });
  dns.set(`mx.${RECIPIENT_DOMAIN}`, { A: ['127.0.0.1'] });
  return dns;
}

/** Creates the sending domain (or `name`, receiving too when asked), publishes its records and verifies it through the API. */
export async function verifiedSendingDomain(
  api: { url: string; apiKey: string },
  dns: TestDnsServer,
  options: { name?: string; receiving?: boolean } = {},
): Promise<string> {
  const name = options.name ?? SENDING_DOMAIN;
  const created = await postJson(api, '/domains', { name, ...(options.receiving ? { capabilities: { receiving: 'enabled' } } : {}) });
  if (created.status !== 201) throw new Error(`POST /domains → ${created.status} ${JSON.stringify(created.body)}`);
  publishRecords({ dns }, name, created.body.records as PublishedRecord[]);
  const verify = await postJson(api, `/domains/${created.body.id}/verify`, {});
  if (verify.status !== 200) throw new Error(`verify → ${verify.status} ${JSON.stringify(verify.body)}`);
  const got = await getJson(api, `/domains/${created.body.id}`);
  if (got.body.status !== 'verified') throw new Error(`domain not verified: ${JSON.stringify(got.body)}`);
  return created.body.id;
}
