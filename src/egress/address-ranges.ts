// Which IP addresses are the public internet, for outbound requests to destinations a tenant
// chose (webhook endpoints, attachment URLs). Everything else is the installation's own
// network or no real destination at all: loopback, private (RFC 1918), link-local (the cloud
// metadata service at 169.254.169.254), carrier-grade NAT, multicast, broadcast, unspecified,
// documentation, benchmarking and reserved ranges; in IPv6 unique-local, link-local,
// site-local, discard, anything outside global unicast (2000::/3), and IPv4 written inside
// IPv6: mapped (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d) and NAT64 (64:ff9b::/96) are
// judged by the IPv4 address they carry; local-use NAT64, 6to4 and Teredo, whose IPv4 part a
// relay would reach, are refused whole.
//
// ipaddr.js (Fastify's trust-proxy uses it) holds IANA's special-purpose registries; this
// file only decides what Postline does with each range.
import ipaddr from 'ipaddr.js';

const IPV4_LABELS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved',
  benchmarking: 'benchmarking',
  as112: 'reserved',
  amt: 'reserved',
};

const IPV6_LABELS: Record<string, string> = {
  unspecified: 'unspecified',
  linkLocal: 'link-local',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local',
  discard: 'reserved',
  rfc6052: 'local-use NAT64',
  '6to4': '6to4 (IPv4 inside IPv6)',
  teredo: 'Teredo (IPv4 inside IPv6)',
  benchmarking: 'benchmarking',
  reserved: 'reserved',
};

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * An IP address as Postline would connect to it: WHATWG's host parser, the one `new URL`
 * and node:http apply, turns every spelling into one (`2130706433`, `0177.0.0.1`, `0x7f.1`
 * → 127.0.0.1; `[::ffff:127.0.0.1]` → ::ffff:7f00:1). Undefined for a name.
 */
export function canonicalAddress(host: string): string | undefined {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  let hostname: string;
  try {
    hostname = new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname;
  } catch {
    return undefined;
  }
  const address = hostname.replace(/^\[(.*)\]$/, '$1');
  return ipaddr.isValid(address) && (ipaddr.IPv4.isValidFourPartDecimal(address) || address.includes(':')) ? address : undefined;
}

/** The IPv4 address an IPv6 one carries in its last 32 bits, for the forms that deliver to it. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = address.range();
  if (range !== 'ipv4Mapped' && range !== 'rfc6145' && !address.match(NAT64)) return undefined;
  const bytes = address.toByteArray().slice(12);
  return new ipaddr.IPv4(bytes);
}

/**
 * Why an address is not on the public internet ('loopback', 'private', 'link-local', …), or
 * undefined when it is. The address in any spelling (canonicalAddress); a string that is no
 * IP address at all counts as not public.
 */
export function nonPublicRange(address: string): string | undefined {
  const canonical = canonicalAddress(address);
  if (canonical === undefined) return 'not an IP address';
  const parsed = ipaddr.parse(canonical);
  if (parsed.kind() === 'ipv4') {
    const range = (parsed as ipaddr.IPv4).range();
    return range === 'unicast' ? undefined : (IPV4_LABELS[range] ?? 'reserved');
  }
  const v6 = parsed as ipaddr.IPv6;
  const carried = embeddedIpv4(v6);
  if (carried) {
    const inner = nonPublicRange(carried.toString());
    return inner === undefined ? undefined : `${inner}, IPv4 ${carried.toString()} inside IPv6`;
  }
  const range = v6.range();
  if (range !== 'unicast') return IPV6_LABELS[range] ?? 'reserved';
  return v6.match(GLOBAL_UNICAST) ? undefined : 'reserved';
}

/** Whether `address` lies in one of `ranges` (CIDR strings); IPv4 inside IPv6 is matched as IPv4. */
export function inRanges(address: string, ranges: readonly string[]): boolean {
  const canonical = canonicalAddress(address);
  if (canonical === undefined) return false;
  const parsed = ipaddr.parse(canonical);
  const carried = parsed.kind() === 'ipv6' ? embeddedIpv4(parsed as ipaddr.IPv6) : undefined;
  return ranges.some((cidr) => {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    if (network.kind() === parsed.kind()) return parsed.match(network, bits);
    return carried !== undefined && network.kind() === 'ipv4' && carried.match(network, bits);
  });
}

/** Whether `cidr` is an address or a range (`10.0.0.0/8`, `fd00::/8`, `192.168.1.5`), for config checks. */
export function isAddressRange(cidr: string): boolean {
  return ipaddr.isValidCIDR(cidr) || (ipaddr.isValid(cidr) && (ipaddr.IPv4.isValidFourPartDecimal(cidr) || cidr.includes(':')));
}

/** `192.168.1.5` → `192.168.1.5/32`: CIDR form for an address written alone. */
export function asRange(cidr: string): string {
  if (cidr.includes('/')) return cidr;
  return `${cidr}/${cidr.includes(':') ? 128 : 32}`;
}
