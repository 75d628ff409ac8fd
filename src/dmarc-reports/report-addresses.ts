// Where reports about a domain are sent: two mailboxes on the domain's return-path host
// (`<custom_return_path>.<domain>`, whose MX already points at Postline), named by the records
// Postline recommends (domains/dns-records.ts): `rua=mailto:dmarc-reports@…` in its DMARC record
// and `rua=mailto:tls-reports@…` in its `_smtp._tls` TLS-RPT record. Inbound mail
// (inbound/recipients.ts) takes these addresses at RCPT TO for any domain that was verified once
// (as receiving domains: a later DNS outage must not start refusing reports), for the domain's
// account. One query for any number of addresses, none when no address has a report mailbox.
import type { Queryable } from '../db/database.js';

type ReportKind = 'dmarc' | 'tls';

const MAILBOXES: Record<ReportKind, string> = { dmarc: 'dmarc-reports', tls: 'tls-reports' };

/** The address on `returnPathHost` that reports of `kind` are asked to go to. */
export const reportAddress = (kind: ReportKind, returnPathHost: string): string => `${MAILBOXES[kind]}@${returnPathHost.toLowerCase()}`;

export interface ReportRecipient {
  address: string;
  accountId: string;
  /** The domain whose return-path host the address is on. */
  domainId: string;
}

/** `local@label.domain` → its label and domain, when `local` is a report mailbox. */
function reportHostOf(address: string): { label: string; domain: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const local = address.slice(0, at).toLowerCase();
  if (local !== MAILBOXES.dmarc && local !== MAILBOXES.tls) return null;
  const host = address
    .slice(at + 1)
    .toLowerCase()
    .replace(/\.$/, '');
  const dot = host.indexOf('.');
  if (dot <= 0 || dot === host.length - 1) return null;
  return { label: host.slice(0, dot), domain: host.slice(dot + 1) };
}

/** Which of `addresses` are report mailboxes of a domain of ours, and whose. */
export async function routeReportRecipients(q: Queryable, addresses: string[]): Promise<ReportRecipient[]> {
  const hosts = addresses.map((address) => ({ address, host: reportHostOf(address) }));
  const wanted = hosts.flatMap((h) => (h.host ? [h.host] : []));
  if (wanted.length === 0) return [];
  // custom_return_path is one DNS label (domain-fields.ts): the name's unique index finds each.
  const rows = await q.query<{ id: string; account_id: string; host: string }>(
    `SELECT id, account_id, custom_return_path || '.' || name AS host FROM domains
      WHERE name = ANY($1::text[]) AND verified_at IS NOT NULL AND NOT placeholder`,
    [[...new Set(wanted.map((w) => w.domain))]],
    'route-report-recipients',
  );
  const byHost = new Map(rows.map((r) => [r.host.toLowerCase(), r]));
  return hosts.flatMap(({ address, host }) => {
    const domain = host && byHost.get(`${host.label}.${host.domain}`);
    return domain ? [{ address, accountId: domain.account_id, domainId: domain.id }] : [];
  });
}
