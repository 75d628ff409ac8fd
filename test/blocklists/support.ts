// Shared by the blocklist tests: the test DNS server (test/support/dns-server.ts) stands in for
// the lists, Postline resolving through it (POSTLINE_DNS_SERVERS, set by startTestPostline), so
// no question reaches a real list.
import { rawRequest, type TestPostline } from '../support/postline.js';

export { createVerifiedDomain } from '../support/domains.js';
export { eventually } from '../support/eventually.js';
export { startTestPostline, type TestPostline } from '../support/postline.js';
export { WebhookReceiver, subscribe, LOOPBACK_ENDPOINTS, FAST_RETRIES } from '../webhooks/support.js';

/** The outbound address the tests send from: 127.0.0.2, RFC 5782's test entry, asked as 2.0.0.127.<zone>. */
export const OUTBOUND_IP = '127.0.0.2';

/** How many A questions the test DNS server got for `name`. */
export const aQueries = (t: Pick<TestPostline, 'dns'>, name: string): number => t.dns.queries.filter((q) => q.type === 'A' && q.name === name).length;

/** The rounds done so far by the cluster (blocklist_rounds), for assertions only. */
export async function rounds(t: TestPostline): Promise<number> {
  return (await t.sql('SELECT rounds FROM blocklist_rounds'))[0].rounds;
}

/** GET /domains/:id's `blocklists`. */
export async function domainChecks(t: TestPostline, id: string): Promise<any[]> {
  const res = await rawRequest(t, 'GET', `/domains/${id}`);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.blocklists;
}

/** GET /queue's `blocklists`. */
export async function queueChecks(t: TestPostline): Promise<any[]> {
  const res = await rawRequest(t, 'GET', '/queue');
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.blocklists;
}

/** postline_blocklist_listed's value for one target and zone, undefined while it has no series. */
export async function listedGauge(t: TestPostline, kind: string, target: string, zone: string): Promise<number | undefined> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) => l.startsWith('postline_blocklist_listed{') && l.includes(`kind="${kind}"`) && l.includes(`target="${target}"`) && l.includes(`zone="${zone}"`),
    );
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

/** The check of one target on one zone, of a list of checks. */
export const checkOf = (checks: any[], kind: string, target: string, zone: string) =>
  checks.find((c) => c.kind === kind && c.target === target && c.zone === zone);
