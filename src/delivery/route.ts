// Where the mail for one recipient domain goes: the smarthost when POSTLINE_RELAY_URL is set,
// otherwise the domain's mail exchangers (mx.ts), each expanded to its addresses (IPv4 first),
// all on POSTLINE_OUTBOUND_PORT. The attempt tries the targets in order and stops at the
// first that answers, which is how "first MX down, use the second" happens.
import { DnsTemporaryError, type DnsResolver } from '../dns/resolver.js';
import { OPPORTUNISTIC, type TlsRequirement } from '../tls-policy/requirement.js';
import { LOCAL_REPLIES } from './bounce-codes.js';
import { mailExchangers } from './mx.js';
import { parseRelayUrl, type RelayTarget } from './relay.js';

export interface Target {
  /** Host name: SNI and what logs and replies name. */
  host: string;
  /** Address to connect to; undefined lets the SMTP client resolve `host` (the relay). */
  address: string | undefined;
  port: number;
  /** TLS from the first byte (smtps relay); otherwise STARTTLS when offered. */
  secure: boolean;
  auth: { user: string; pass: string } | undefined;
  /** What the session must prove before mail goes over it (tls-policy/policy.ts sets it per job). */
  tls: TlsRequirement;
}

type Route =
  /** `key` names the destination for the per-host concurrency limit; `mxHosts` are the domain's MX hosts (none through the relay). */
  | { ok: true; key: string; targets: Target[]; mxHosts: string[]; relay: boolean }
  /** No host will ever take it: bounce with this reply. */
  | { ok: false; permanent: true; response: string }
  /** Not now (DNS failure, no address yet): retry later. */
  | { ok: false; permanent: false; response: string };

export class Router {
  private relay: RelayTarget | undefined;

  constructor(
    private resolver: DnsResolver,
    private outboundPort: number,
    relayUrl: string | undefined,
  ) {
    this.relay = relayUrl ? parseRelayUrl(relayUrl) : undefined;
  }

  async route(domain: string): Promise<Route> {
    if (this.relay) {
      const { host, port, secure, auth } = this.relay;
      return {
        ok: true,
        key: `relay ${host}:${port}`,
        targets: [{ host, address: undefined, port, secure, auth, tls: OPPORTUNISTIC }],
        mxHosts: [],
        relay: true,
      };
    }
    // A claim of 500 emails to one domain asks DNS once: the resolver shares lookups in
    // flight and caches answers by TTL.
    return this.routeDirect(domain).catch((err): Route => {
      if (err instanceof DnsTemporaryError) return { ok: false, permanent: false, response: `451 4.4.3 DNS lookup failed: ${err.message}` };
      throw err;
    });
  }

  private async routeDirect(domain: string): Promise<Route> {
    const mx = await mailExchangers(this.resolver, domain);
    if (mx.kind === 'no_such_domain') return { ok: false, permanent: true, response: LOCAL_REPLIES.noSuchDomain(domain) };
    if (mx.kind === 'null_mx') return { ok: false, permanent: true, response: LOCAL_REPLIES.nullMx(domain) };

    const targets: Target[] = [];
    let dnsError: string | undefined;
    for (const host of mx.hosts) {
      try {
        for (const address of await this.resolver.addresses(host)) {
          targets.push({ host, address, port: this.outboundPort, secure: false, auth: undefined, tls: OPPORTUNISTIC });
        }
      } catch (err) {
        if (!(err instanceof DnsTemporaryError)) throw err;
        dnsError = err.message; // the next MX may still resolve
      }
    }
    // Keyed by the whole MX set: hosts of equal preference come back shuffled, and the limit
    // is meant for the destination, whichever of its hosts answers.
    if (targets.length > 0) return { ok: true, key: `mx ${[...mx.hosts].sort().join(',')}:${this.outboundPort}`, targets, mxHosts: mx.hosts, relay: false };
    if (dnsError) return { ok: false, permanent: false, response: `451 4.4.3 DNS lookup failed: ${dnsError}` };
    if (mx.implicit) return { ok: false, permanent: true, response: LOCAL_REPLIES.noAddress(domain) };
    // MX records naming hosts without addresses are usually a DNS change in progress.
    return { ok: false, permanent: false, response: `451 4.4.4 ${domain}: no MX host has an address (${mx.hosts.join(', ')})` };
  }
}
