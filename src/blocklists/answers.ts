// What a DNS blocklist is asked and what its answer means (RFC 5782). An address is asked as
// its reversed octets under the zone (`2.0.0.127.zen.spamhaus.org`; IPv6 as 32 reversed
// nibbles), a domain as itself under the zone (`example.com.dbl.spamhaus.org`). An A record
// in 127.0.0.0/8 is a listing, with the zone's TXT record at the same name as its reason;
// NXDOMAIN (or no A record) is no listing. Some answers are neither: a list that will not
// answer this resolver says so with a code of its own, which must not read as a listing:
// - 127.255.255.x: Spamhaus' (ZEN, DBL, …) error codes: 252 a typing error in the list's name,
//   254 a query through a public or open resolver, 255 too many queries;
// - 127.0.0.1: SURBL's and URIBL's "query blocked" (RFC 5782 §5: never a listing either);
// - 127.0.1.255: Spamhaus DBL's "IP queries prohibited";
// - anything outside 127.0.0.0/8: not a blocklist's answer (a resolver that rewrites NXDOMAIN).
// Such a check is "not possible", with the reason; a time-out or SERVFAIL is "unknown".
import ipaddr from 'ipaddr.js';

export type TargetKind = 'ip' | 'domain';

/** What one question to one list concluded. */
export type Outcome =
  | { result: 'listed'; codes: string[] }
  | { result: 'not_listed' }
  | { result: 'not_possible'; codes: string[]; reason: string }
  | { result: 'unknown'; error: string };

/** The name to ask `zone` about `target`: reversed octets or nibbles for an address, the name itself for a domain. */
export function queryName(kind: TargetKind, target: string, zone: string): string {
  if (kind === 'domain') return `${target.toLowerCase().replace(/\.$/, '')}.${zone}`;
  let address = ipaddr.parse(target);
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address();
  if (address.kind() === 'ipv4') return `${[...address.toByteArray()].reverse().join('.')}.${zone}`;
  const nibbles = (address as ipaddr.IPv6)
    .toByteArray()
    .flatMap((byte) => [byte >> 4, byte & 15])
    .map((n) => n.toString(16));
  return `${nibbles.reverse().join('.')}.${zone}`;
}

const SPAMHAUS_ERRORS: Record<string, string> = {
  '127.255.255.252': 'the list answered 127.255.255.252: a typing error in the list name',
  '127.255.255.254': 'the list answered 127.255.255.254: queried through a public or open resolver (use a resolver of your own)',
  '127.255.255.255': 'the list answered 127.255.255.255: too many queries from this resolver',
};

/** Why an A record from `zone` is not a listing, or undefined when it is one. */
function refusalOf(zone: string, code: string): string | undefined {
  if (code.startsWith('127.255.255.')) return SPAMHAUS_ERRORS[code] ?? `the list answered ${code}: an error code, not a listing`;
  if (code === '127.0.0.1') return 'the list answered 127.0.0.1: query blocked (as SURBL and URIBL refuse public resolvers)';
  if (code === '127.0.1.255' && /(^|\.)spamhaus\.(org|net)$/.test(zone)) return 'the list answered 127.0.1.255: IP queries prohibited';
  if (!code.startsWith('127.')) return `the list answered ${code}, outside 127.0.0.0/8: not a blocklist answer (a resolver rewriting NXDOMAIN?)`;
  return undefined;
}

/** What the A records of a question mean: listed (codes), not listed (none), or not possible (only refusal codes). */
export function outcomeOf(zone: string, codes: string[]): Outcome {
  if (codes.length === 0) return { result: 'not_listed' };
  const sorted = [...new Set(codes)].sort();
  const listings = sorted.filter((code) => refusalOf(zone, code) === undefined);
  if (listings.length > 0) return { result: 'listed', codes: listings };
  return { result: 'not_possible', codes: sorted, reason: [...new Set(sorted.map((code) => refusalOf(zone, code)!))].join('; ') };
}
