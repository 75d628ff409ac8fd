// Which MX hosts a job may use and what each connection must prove (requirement.ts), from the
// promises made about the mail:
// - the sending domain's `tls: "enforced"`: encrypted, whatever the certificate (also through
//   the relay, which is then the host the promise is about);
// - the recipient domain's MTA-STS policy (mta-sts-cache.ts): in `enforce` mode only MX hosts
//   its `mx` patterns match, each with a certificate valid for its name (RFC 8461 §4); in
//   `testing` mode the same is checked and only reported;
// - DANE (RFC 7672): when the resolver validates DNSSEC (its answers carry the AD bit) and the
//   MX records and a host's addresses are secure, the host's secure TLSA records. They take
//   precedence over MTA-STS for that host (RFC 8461 §2). A TLSA lookup that fails (a bogus
//   answer: SERVFAIL from a validating resolver) leaves that host unusable for now (RFC 7672 §2.2).
// The relay and the sandbox catcher deliver on Postline's behalf: recipients' policies are theirs
// to apply, so only the sender's setting applies to them.
import { DnsTemporaryError, type DnsResolver } from '../dns/resolver.js';
import type { MtaStsPolicies, CachedStsPolicy } from './mta-sts-cache.js';
import { mxMatchesPolicy } from './mta-sts.js';
import { usableTlsa } from './dane.js';
import { OPPORTUNISTIC, stronger, type PolicyInForce, type TlsRequirement } from './requirement.js';
import type { TlsReportCounter } from './tls-report-counts.js';

/** A host to connect to (delivery/route.ts's Target), with what its session must prove. */
interface Target {
  host: string;
  tls: TlsRequirement;
}

type PolicyResult<T extends Target> =
  | { ok: true; targets: T[]; sts: CachedStsPolicy | null }
  /** No host may be used now: defer with this reason. */
  | { ok: false; reason: string; sts: CachedStsPolicy | null };

export class TransportPolicy {
  constructor(
    private resolver: DnsResolver,
    private mtaSts: MtaStsPolicies,
    /** Hosts refused before a session (not among the policy's MX hosts, TLSA unreadable) count as failures in TLS reports. */
    private reports?: TlsReportCounter,
  ) {}

  async apply<T extends Target>(domain: string, senderTls: 'opportunistic' | 'enforced', route: { targets: T[]; relay: boolean }): Promise<PolicyResult<T>> {
    const sender: TlsRequirement = senderTls === 'enforced' ? { level: 'encrypted', because: "the sending domain's tls: enforced" } : OPPORTUNISTIC;
    if (route.relay) return { ok: true, targets: route.targets.map((t) => ({ ...t, tls: sender })), sts: null };

    const { policy: sts } = await this.mtaSts.policyFor(domain);
    const dane = await this.daneOf(domain, [...new Set(route.targets.map((t) => t.host))]);
    const refused: string[] = [];
    const targets: T[] = [];
    const reported = new Set<string>();
    for (const target of route.targets) {
      const byDane = dane.get(target.host);
      if (byDane && 'refused' in byDane) {
        if (!refused.includes(byDane.refused)) refused.push(byDane.refused);
        continue;
      }
      let recipient: TlsRequirement = byDane?.requirement ?? OPPORTUNISTIC;
      if (!byDane && sts && sts.mode !== 'none') {
        const policy = stsInForce(sts);
        if (!mxMatchesPolicy(target.host, sts.mx)) {
          if (!reported.has(target.host)) this.reports?.session(policy, 'validation-failure', { mx: target.host, receivingIp: '', sendingIp: '' });
          reported.add(target.host);
          if (sts.mode === 'enforce') {
            const reason = `${target.host} is not among the MX hosts of the MTA-STS policy of ${domain} (enforce, id ${sts.id}: ${sts.mx.join(', ')})`;
            if (!refused.includes(reason)) refused.push(reason);
            continue;
          }
          // testing: delivered as before, its failure counted above (not again for the session).
        } else {
          recipient =
            sts.mode === 'enforce'
              ? { level: 'verified', because: `the MTA-STS policy of ${domain} (enforce, id ${sts.id})`, policy }
              : { level: 'opportunistic', policy };
        }
      }
      targets.push({ ...target, tls: stronger(recipient, sender) });
    }
    if (targets.length === 0) return { ok: false, reason: refused.join('; '), sts };
    return { ok: true, targets, sts };
  }

  /** Per MX host, its DANE requirement or why it cannot be used; hosts DANE does not apply to are absent. */
  private async daneOf(domain: string, hosts: string[]): Promise<Map<string, { requirement: TlsRequirement } | { refused: string }>> {
    const found = new Map<string, { requirement: TlsRequirement } | { refused: string }>();
    // Answered from the resolver's cache: the route has just looked these up.
    const mx = await this.resolver.mxSecure(domain).catch(() => null);
    if (!mx?.secure) return found;
    await Promise.all(
      hosts.map(async (host) => {
        const base = `_25._tcp.${host}`;
        try {
          if (!(await this.resolver.addressesSecure(host)).secure) return;
          const tlsa = await this.resolver.tlsa(base);
          if (!tlsa.secure || tlsa.records.length === 0) return;
          const policy: PolicyInForce = { type: 'tlsa', domain, strings: tlsa.records.map(presentTlsa), testing: false };
          const usable = usableTlsa(tlsa.records);
          found.set(host, {
            requirement:
              usable.length > 0
                ? { level: 'dane', because: `DANE (TLSA of ${base})`, policy, tlsa: usable }
                : { level: 'encrypted', because: `DANE (TLSA of ${base}, none usable: encryption without authentication, RFC 7672 §2.2)`, policy },
          });
        } catch (err) {
          if (!(err instanceof DnsTemporaryError)) throw err;
          found.set(host, {
            refused: `${host}: its addresses or TLSA records could not be read securely (${err.message}); DANE forbids using it until they can`,
          });
        }
      }),
    );
    return found;
  }
}

function stsInForce(sts: CachedStsPolicy): PolicyInForce {
  return { type: 'sts', domain: sts.domain, strings: sts.text.split(/\r?\n/).filter((line) => line.trim() !== ''), testing: sts.mode === 'testing' };
}

/** A TLSA record as a zone file writes it (`3 1 1 <hex>`), for reports and messages. */
function presentTlsa(record: { usage: number; selector: number; matchingType: number; data: Buffer }): string {
  return `${record.usage} ${record.selector} ${record.matchingType} ${record.data.toString('hex')}`;
}
