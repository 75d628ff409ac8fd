// The DNS records a domain must publish to send (and receive) through this installation,
// and how each is checked. Values point at this installation's SMTP host name: SPF
// authorizes its addresses, the return-path MX and the receiving MX route mail to it. The DMARC
// and TLS-RPT records ask for reports at the return-path host (dmarc-reports/report-addresses.ts).
import { reportAddress } from '../dmarc-reports/report-addresses.js';
import { DnsTemporaryError, type DnsResolver } from '../dns/resolver.js';

type RecordKey = 'dkim' | 'spf_mx' | 'spf_txt' | 'dmarc' | 'dmarc_report_authorization' | 'tls_rpt' | 'receiving_mx' | 'tracking';

/** Where the records point: the SMTP host name (SPF, MX) and the public URL's host (the tracking CNAME). */
export interface RecordTargets {
  mta: string;
  web: string;
}

export function recordTargets(config: { smtpHostname: string; publicUrl: string }): RecordTargets {
  return { mta: config.smtpHostname, web: new URL(config.publicUrl).hostname };
}
export type RecordStatus = 'not_started' | 'pending' | 'verified' | 'failed' | 'temporary_failure';

interface DomainDnsFacts {
  name: string;
  dkimSelector: string;
  dkimPublicKey: string;
  returnPath: string;
  receivingEnabled: boolean;
  /** The subdomain tracked links should use (tracking_subdomain), if any. */
  trackingSubdomain: string | null;
}

interface ExpectedRecord {
  key: RecordKey;
  /** Resend's `record` label. */
  record: 'DKIM' | 'SPF' | 'DMARC' | 'TLS-RPT' | 'Receiving' | 'Tracking';
  /** Name relative to the domain, as Resend shows it ("resend._domainkey", "send"); a full name when `absolute`. */
  name: string;
  /** The name is a full one, outside the domain (the DMARC report authorization of an external rua host). */
  absolute?: true;
  type: 'TXT' | 'MX' | 'CNAME';
  value: string;
  priority?: number;
  /** Whether the domain counts as verified only once this record is. */
  required: boolean;
}

export function expectedRecords(domain: DomainDnsFacts, targets: RecordTargets): ExpectedRecord[] {
  const mtaHost = targets.mta;
  const returnPathHost = `${domain.returnPath}.${domain.name}`;
  const records: ExpectedRecord[] = [
    { key: 'dkim', record: 'DKIM', name: `${domain.dkimSelector}._domainkey`, type: 'TXT', value: `p=${domain.dkimPublicKey}`, required: true },
    { key: 'spf_mx', record: 'SPF', name: domain.returnPath, type: 'MX', value: mtaHost, priority: 10, required: true },
    { key: 'spf_txt', record: 'SPF', name: domain.returnPath, type: 'TXT', value: `v=spf1 a:${mtaHost} ~all`, required: true },
    // Verified by any v=DMARC1 record (check below): the domain's own policy and addresses are kept.
    {
      key: 'dmarc',
      record: 'DMARC',
      name: '_dmarc',
      type: 'TXT',
      value: `v=DMARC1; p=none; rua=mailto:${reportAddress('dmarc', returnPathHost)};`,
      required: false,
    },
  ];
  // RFC 7489 §7.1: a rua outside the domain is used only if that host's zone authorizes it.
  // The return-path host is a name under the domain today, so this is for a host that is not.
  if (!returnPathHost.endsWith(`.${domain.name}`)) {
    const name = `${domain.name}._report._dmarc.${returnPathHost}`;
    records.push({ key: 'dmarc_report_authorization', record: 'DMARC', name, absolute: true, type: 'TXT', value: 'v=DMARC1;', required: false });
  }
  // Tracked links of the domain go to <subdomain>.<domain> once this verifies (sending-domain.ts).
  if (domain.trackingSubdomain) {
    records.push({ key: 'tracking', record: 'Tracking', name: domain.trackingSubdomain, type: 'CNAME', value: targets.web, required: false });
  }
  if (domain.receivingEnabled) {
    records.push({ key: 'receiving_mx', record: 'Receiving', name: domain.name, type: 'MX', value: mtaHost, priority: 10, required: true });
    // RFC 8460: senders' reports of TLS failures delivering to this domain, at its return-path host.
    records.push({
      key: 'tls_rpt',
      record: 'TLS-RPT',
      name: '_smtp._tls',
      type: 'TXT',
      value: `v=TLSRPTv1; rua=mailto:${reportAddress('tls', returnPathHost)}`,
      required: false,
    });
  }
  return records;
}

/** The full DNS name of a record whose name is relative to the domain (or the domain itself). */
function fqdn(record: Pick<ExpectedRecord, 'name' | 'absolute'>, domainName: string): string {
  return record.name === domainName || record.absolute ? record.name : `${record.name}.${domainName}`;
}

const squash = (s: string) => s.replace(/\s+/g, '').toLowerCase();

async function check(resolver: DnsResolver, record: ExpectedRecord, domainName: string): Promise<RecordStatus> {
  const name = fqdn(record, domainName);
  try {
    if (record.type === 'CNAME') {
      const targets = await resolver.cname(name, { fresh: true });
      return targets.includes(record.value.toLowerCase()) ? 'verified' : 'failed';
    }
    if (record.type === 'MX') {
      const mx = await resolver.mx(name, { fresh: true });
      return mx?.some((m) => m.exchange === record.value.toLowerCase()) ? 'verified' : 'failed';
    }
    const txt = (await resolver.txt(name, { fresh: true })).map(squash);
    switch (record.key) {
      case 'dkim':
        return txt.some((t) => t.split(';').includes(squash(record.value))) ? 'verified' : 'failed';
      case 'spf_txt': {
        const mechanism = squash(record.value)
          .replace(/^v=spf1/, '')
          .replace(/~all$/, '');
        return txt.some((t) => t.startsWith('v=spf1') && t.includes(mechanism)) ? 'verified' : 'failed';
      }
      case 'tls_rpt':
        return txt.some((t) => t.startsWith('v=tlsrptv1')) ? 'verified' : 'failed';
      default:
        return txt.some((t) => t.startsWith('v=dmarc1')) ? 'verified' : 'failed';
    }
  } catch (err) {
    if (err instanceof DnsTemporaryError) return 'temporary_failure';
    throw err;
  }
}

/** Looks every record up (fresh answers, not the cache) and derives the domain's status. */
export async function verifyRecords(
  resolver: DnsResolver,
  records: ExpectedRecord[],
  domainName: string,
): Promise<{ recordStatus: Record<string, RecordStatus>; status: string }> {
  const statuses = await Promise.all(records.map((r) => check(resolver, r, domainName)));
  const recordStatus = Object.fromEntries(records.map((r, i) => [r.key, statuses[i]!]));
  const required = records.map((r, i) => (r.required ? statuses[i]! : undefined)).filter((s): s is RecordStatus => !!s);
  let status: string;
  if (required.every((s) => s === 'verified')) status = 'verified';
  else if (required.some((s) => s === 'temporary_failure')) status = 'pending';
  else if (required.some((s) => s === 'verified')) status = 'partially_verified';
  else status = 'failed';
  return { recordStatus, status };
}
