// The one rule for outbound HTTP to a destination a tenant chose (webhook endpoints,
// attachment `path` URLs, anything later that calls a URL an API caller gave): it may reach
// the public internet only, unless the operator opens private addresses deliberately
// (POSTLINE_WEBHOOK_ALLOW_PRIVATE, POSTLINE_ATTACHMENT_FETCH_ALLOW_PRIVATE: `true`, or CIDR
// ranges). Without it, a tenant of a shared installation could make Postline request the
// installation's own network (the cloud metadata service, an admin port on loopback) and
// read the answer back through the delivery log or an attachment: server-side request
// forgery.
//
// The decision is made on the addresses actually connected to: the host is resolved through
// the installation's resolver, every address it has must be allowed (the connection could go
// to any of them), and the connection is then pinned to those addresses (pinnedLookup), so a
// second DNS answer cannot rebind it elsewhere.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import { canonicalAddress, inRanges, nonPublicRange } from './address-ranges.js';

/** Which non-public addresses may be reached: none (false), all (true), or these CIDR ranges. */
export type PrivateAccess = boolean | readonly string[];

/** A destination the policy refuses; the message says which address and why. */
export class RefusedDestination extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    const what = canonicalAddress(host) === address ? address : `${host} resolves to ${address}, which`;
    super(`${what} is not a public address (${range}), and private, loopback and reserved addresses may not be reached`);
  }
}

/** The host could not be resolved (no such name, no address, or the DNS failed). */
export class UnresolvedDestination extends Error {}

/** A URL's host without IPv6 brackets or a trailing dot. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** `localhost` and its subdomains are loopback by definition (RFC 6761 §6.3), whatever DNS says. */
const isLocalhost = (host: string) => /(^|\.)localhost$/i.test(host);
const LOCALHOST_ADDRESSES = ['127.0.0.1', '::1'];

export class DestinationPolicy {
  constructor(
    private readonly access: PrivateAccess,
    /** A host name's IPv4 and IPv6 addresses (the installation's DNS resolver). */
    private readonly resolveHost: (host: string) => Promise<string[]>,
  ) {}

  /** Why `address` may not be reached (its range), or undefined when it may. */
  refusal(address: string): string | undefined {
    const range = nonPublicRange(address);
    if (range === undefined || this.access === true) return undefined;
    if (Array.isArray(this.access) && inRanges(address, this.access)) return undefined;
    return range;
  }

  /**
   * The refusal a URL earns without any DNS lookup: its host is an IP address (in any
   * spelling) or `localhost`. Undefined for other names, which are judged when connecting.
   */
  literalRefusal(url: URL): RefusedDestination | undefined {
    const host = hostOf(url);
    const addresses = isLocalhost(host) ? LOCALHOST_ADDRESSES : [canonicalAddress(host)].filter((a) => a !== undefined);
    for (const address of addresses) {
      const range = this.refusal(address);
      if (range !== undefined) return new RefusedDestination(host, address, range);
    }
    return undefined;
  }

  /**
   * The addresses to connect to for `url`, every one of them allowed. Throws
   * RefusedDestination or UnresolvedDestination; connects nowhere.
   */
  async addresses(url: URL): Promise<string[]> {
    const host = hostOf(url);
    const literal = canonicalAddress(host);
    let addresses: string[];
    if (literal !== undefined) addresses = [literal];
    else if (isLocalhost(host)) addresses = LOCALHOST_ADDRESSES;
    else {
      try {
        addresses = await this.resolveHost(host);
      } catch {
        throw new UnresolvedDestination(`the host ${host} could not be resolved`);
      }
      if (addresses.length === 0) throw new UnresolvedDestination(`the host ${host} has no address`);
    }
    for (const address of addresses) {
      const range = this.refusal(address);
      if (range !== undefined) throw new RefusedDestination(host, address, range);
    }
    return addresses;
  }
}

/**
 * node:http's `lookup` option that answers with the addresses already checked, whatever DNS
 * would say now. (For an IP literal node connects without a lookup, to the address checked.)
 */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: net.isIP(address) }));
  return ((_host: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    const family = options?.family === 'IPv4' ? 4 : options?.family === 'IPv6' ? 6 : Number(options?.family ?? 0);
    const usable = family === 4 || family === 6 ? entries.filter((e) => e.family === family) : entries;
    if (usable.length === 0) {
      const err = Object.assign(new Error(`no IPv${family} address among the checked ones`), { code: 'ENOTFOUND' });
      return options?.all ? callback(err, []) : callback(err, '', 0);
    }
    if (options?.all) callback(null, usable);
    else callback(null, usable[0]!.address, usable[0]!.family);
  }) as LookupFunction;
}

/**
 * One request to `url` that connects only to `addresses` (the ones the policy checked), TLS
 * verified against the URL's host name; resolves with the response as it starts (its body is
 * the caller's to read or destroy), rejects with the request's error.
 */
export function pinnedRequest(
  url: URL,
  options: { method: 'GET' | 'HEAD'; addresses: readonly string[]; signal: AbortSignal; userAgent: string },
): Promise<http.IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  const host = hostOf(url);
  return new Promise((resolve, reject) => {
    const request = client.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: options.method,
        headers: { 'user-agent': options.userAgent, accept: '*/*', 'accept-encoding': 'identity' },
        lookup: pinnedLookup(options.addresses),
        servername: net.isIP(host) ? undefined : host,
        agent: false,
        signal: options.signal,
      },
      resolve,
    );
    request.on('error', reject);
    request.end();
  });
}
