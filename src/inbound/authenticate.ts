// Sender authentication of an inbound message: SPF (the client's address, HELO and MAIL FROM),
// DKIM signatures and DMARC, by mailauth, with every lookup going through Postline's own
// resolver (POSTLINE_DNS_SERVERS), so tests and operators decide where DNS answers come from.
// Results are recorded, not enforced: mail for our receiving domains is stored either way,
// and the verdicts travel with it (inbound_messages, and the Authentication-Results header).
import net from 'node:net';
import { authenticate, type AuthenticateResult, type DNSResolver } from 'mailauth';
import { DnsTemporaryError, type DnsResolver } from '../dns/resolver.js';
import type { Logger } from '../logger.js';

interface SmtpClient {
  /** MAIL FROM, '' for the null reverse-path. */
  mailFrom: string;
  remoteAddress: string;
  heloName: string;
}

export interface Authentication {
  spf: string;
  dkim: string;
  dmarc: string;
  /** Per-method details, as stored in inbound_messages.authentication. */
  details: Record<string, unknown>;
  /** Received-SPF and Authentication-Results header lines (CRLF-terminated) to put in front of the message. */
  headerLines: string;
}

const dnsError = (code: string, message: string) => Object.assign(new Error(message), { code });

/**
 * mailauth asks `(name, type)` and expects node's dns.resolve shapes and error codes:
 * ENOTFOUND/ENODATA mean "no such record" (SPF counts them as void lookups), ETIMEOUT a
 * temporary failure. Types our resolver does not ask (PTR) read as absent.
 */
export function mailauthResolver(dns: DnsResolver): DNSResolver {
  const resolve = async (name: string, type: string): Promise<unknown[]> => {
    try {
      let answers: unknown[] = [];
      if (type === 'TXT') answers = (await dns.txt(name)).map((record) => [record]);
      else if (type === 'MX') {
        const mx = await dns.mx(name);
        if (mx === null) throw dnsError('ENOTFOUND', `${type} ${name}: no such domain`);
        answers = mx;
      } else if (type === 'A' || type === 'AAAA') {
        answers = (await dns.addresses(name)).filter((a) => (type === 'A' ? net.isIPv4(a) : net.isIPv6(a)));
      }
      if (answers.length === 0) throw dnsError('ENODATA', `${type} ${name}: no records`);
      return answers;
    } catch (err) {
      if (err instanceof DnsTemporaryError) throw dnsError('ETIMEOUT', err.message);
      throw err;
    }
  };
  return resolve as DNSResolver;
}

/** The verdict of the best DKIM signature: pass if any passes, else the first one's, none when unsigned. */
function dkimVerdict(result: AuthenticateResult['dkim']): string {
  const results = result.results ?? [];
  if (results.some((r) => r.status.result === 'pass')) return 'pass';
  return results[0]?.status.result ?? 'none';
}

export async function authenticateMessage(
  raw: Buffer,
  client: SmtpClient,
  deps: { resolver: DNSResolver; mtaHost: string; logger: Logger },
): Promise<Authentication> {
  try {
    const result = await authenticate(raw, {
      ip: client.remoteAddress.replace(/^::ffff:/, ''),
      helo: client.heloName || undefined,
      sender: client.mailFrom || undefined,
      mta: deps.mtaHost,
      resolver: deps.resolver,
      disableArc: true,
      disableBimi: true,
    });
    const spf = result.spf ? result.spf.status.result : 'none';
    const dmarc = result.dmarc ? result.dmarc.status.result : 'none';
    return {
      spf,
      dkim: dkimVerdict(result.dkim),
      dmarc,
      details: {
        spf: result.spf ? { result: spf, domain: result.spf.domain, comment: result.spf.status.comment ?? null } : { result: spf },
        dkim: (result.dkim.results ?? []).map((r) => ({
          result: r.status.result,
          domain: r.signingDomain ?? null,
          selector: r.selector ?? null,
          aligned: r.status.aligned ?? null,
          comment: r.status.comment ?? null,
        })),
        dmarc: result.dmarc
          ? { result: dmarc, domain: result.dmarc.domain, policy: result.dmarc.policy ?? null, comment: result.dmarc.status.comment ?? null }
          : { result: dmarc },
      },
      headerLines: result.headers.endsWith('\r\n') ? result.headers : `${result.headers}\r\n`,
    };
  } catch (err) {
    // A message we cannot evaluate is still mail for the customer: keep it, say so.
    deps.logger.warn({ err }, 'inbound authentication failed');
    return {
      spf: 'temperror',
      dkim: 'temperror',
      dmarc: 'temperror',
      details: { error: (err as Error).message },
      headerLines: `Authentication-Results: ${deps.mtaHost}; spf=temperror; dkim=temperror; dmarc=temperror\r\n`,
    };
  }
}
