// The mail exchangers of a recipient domain, in the order RFC 5321 §5.1 says to try them:
// MX records by preference; no MX records at all → the domain itself (its A/AAAA) as an
// implicit MX of preference 0. A "null MX" (a single MX of "." — RFC 7505) and a domain that
// does not exist are permanent: no amount of retrying will find a host. A DNS time-out or
// server failure surfaces as DnsTemporaryError, to be retried later.
import type { DnsResolver } from '../dns/resolver.js';

type MxHosts = { kind: 'hosts'; hosts: string[]; implicit: boolean } | { kind: 'no_such_domain' } | { kind: 'null_mx' };

export async function mailExchangers(resolver: DnsResolver, domain: string): Promise<MxHosts> {
  const records = await resolver.mx(domain);
  if (records === null) return { kind: 'no_such_domain' };
  if (records.length === 0) return { kind: 'hosts', hosts: [domain], implicit: true };
  // The resolver strips the trailing dot, so the null MX's "." arrives as "".
  const real = records.filter((r) => r.exchange !== '' && r.exchange !== '.');
  if (real.length === 0) return { kind: 'null_mx' };
  // Equal preferences should be tried in random order (RFC 5321 §5.1) to spread load.
  const shuffled = real.map((r) => ({ ...r, tie: Math.random() })).sort((a, b) => a.priority - b.priority || a.tie - b.tie);
  return { kind: 'hosts', hosts: [...new Set(shuffled.map((r) => r.exchange))], implicit: false };
}
