// Which envelope recipients are ours to take from an unauthenticated client, and for what:
// - any address on a domain with receiving enabled that was verified at least once (its
//   Receiving MX record is what routes mail here; domain names are unique in the
//   installation, so the domain names its one account). Verified once, not "verified now":
//   a later re-check during a DNS outage must not start bouncing the domain's mail;
// - the return path of an email we sent, `bounces+<email id>@<return-path host>` exactly as
//   the email's envelope_from (src/emails/accept.ts), where DSNs and feedback reports land;
// - `postmaster` with no domain, which RFC 5321 §4.5.1 requires every SMTP server to accept,
//   and postmaster at the name the server greets with (POSTLINE_SMTP_HOSTNAME): mail for the
//   installation itself. It is received for the installation's oldest account (the one
//   POSTLINE_BOOTSTRAP_API_KEY belongs to), like mail for a receiving domain of that account
//   (GET /emails/receiving, email.received). postmaster@ a receiving domain is that domain's.
// - the report mailboxes on a domain's return-path host (dmarc-reports@, tls-reports@: the rua
//   addresses its recommended DMARC and TLS-RPT records name), dmarc-reports/report-addresses.ts;
// Everything else is refused by the SMTP server (no relay). One query for any number of
// addresses (and one more when some are report mailboxes).
import type { Queryable } from '../db/database.js';
import { type ReportRecipient, routeReportRecipients } from '../dmarc-reports/report-addresses.js';

export interface RoutedRecipients {
  /** Receiving-domain recipients, by the account whose domain they are on, in envelope order. */
  byAccount: Map<string, string[]>;
  /** Return-path recipients: the email each one names. */
  returnPaths: { address: string; emailId: string }[];
  /** Report mailboxes (dmarc-reports@, tls-reports@ a return-path host): the account whose domain's they are. */
  reports: ReportRecipient[];
}

const RETURN_PATH_LOCAL = /^bounces\+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** Mail for the installation: bare `postmaster` (any case), or postmaster@`hostname`. */
function isPostmaster(address: string, hostname: string): boolean {
  const lower = address.toLowerCase();
  return lower === 'postmaster' || lower === `postmaster@${hostname.toLowerCase().replace(/\.$/, '')}`;
}

function split(address: string): { local: string; domain: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  return {
    local: address.slice(0, at),
    domain: address
      .slice(at + 1)
      .toLowerCase()
      .replace(/\.$/, ''),
  };
}

/** `hostname`: the name the SMTP server greets with, where postmaster@ is the installation's. */
export async function routeRecipients(q: Queryable, addresses: string[], hostname: string): Promise<RoutedRecipients> {
  const parts = addresses.map((address) => ({ address, parts: split(address) }));
  const domains = [...new Set(parts.flatMap((p) => (p.parts ? [p.parts.domain] : [])))];
  const emailIds = [...new Set(parts.flatMap((p) => RETURN_PATH_LOCAL.exec(p.parts?.local ?? '')?.[1]?.toLowerCase() ?? []))];
  const postmaster = addresses.some((a) => isPostmaster(a, hostname));
  const routed: RoutedRecipients = { byAccount: new Map(), returnPaths: [], reports: [] };
  if (domains.length === 0 && !postmaster) return routed;
  routed.reports = await routeReportRecipients(q, addresses);
  const reportMailboxes = new Set(routed.reports.map((r) => r.address));
  const rows = await q.query<{ kind: 'domain' | 'email' | 'postmaster'; key: string; account_id: string; envelope_from: string | null }>(
    `SELECT 'domain' AS kind, name AS key, account_id, NULL AS envelope_from FROM domains
      WHERE name = ANY($1::text[]) AND receiving_enabled AND verified_at IS NOT NULL AND NOT placeholder
     UNION ALL
     SELECT 'email', id::text, account_id, envelope_from FROM emails
      WHERE id = ANY($2::uuid[]) AND envelope_from IS NOT NULL
     UNION ALL
     SELECT 'postmaster', '', oldest.id, NULL FROM (SELECT id FROM accounts ORDER BY created_at, id LIMIT 1) oldest WHERE $3`,
    [domains, emailIds, postmaster],
    'route-recipients',
  );
  const receiving = new Map(rows.filter((r) => r.kind === 'domain').map((r) => [r.key, r.account_id]));
  const returnPaths = new Map(rows.filter((r) => r.kind === 'email').map((r) => [r.envelope_from!.toLowerCase(), r.key]));
  const installation = rows.find((r) => r.kind === 'postmaster')?.account_id;
  for (const { address, parts: p } of parts) {
    if (reportMailboxes.has(address)) continue;
    const emailId = p && returnPaths.get(`${p.local}@${p.domain}`.toLowerCase());
    if (emailId) {
      routed.returnPaths.push({ address, emailId });
      continue;
    }
    const accountId = (p && receiving.get(p.domain)) || (isPostmaster(address, hostname) ? installation : undefined);
    if (!accountId) continue;
    const list = routed.byAccount.get(accountId) ?? [];
    if (!list.some((a) => a.toLowerCase() === address.toLowerCase())) list.push(address);
    routed.byAccount.set(accountId, list);
  }
  return routed;
}
