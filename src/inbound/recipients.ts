// Which envelope recipients are ours to take from an unauthenticated client, and for what:
// - any address on a domain with receiving enabled that was verified at least once (its
//   Receiving MX record is what routes mail here; domain names are unique in the
//   installation, so the domain names its one account). Verified once, not "verified now":
//   a later re-check during a DNS outage must not start bouncing the domain's mail;
// - the return path of an email we sent, `bounces+<email id>@<return-path host>` exactly as
//   the email's envelope_from (src/emails/accept.ts), where DSNs and feedback reports land.
// Everything else is refused by the SMTP server (no relay). One query for any number of addresses.
import type { Queryable } from '../db/database.js';

export interface RoutedRecipients {
  /** Receiving-domain recipients, by the account whose domain they are on, in envelope order. */
  byAccount: Map<string, string[]>;
  /** Return-path recipients: the email each one names. */
  returnPaths: { address: string; emailId: string }[];
}

const RETURN_PATH_LOCAL = /^bounces\+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

function split(address: string): { local: string; domain: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  return { local: address.slice(0, at), domain: address.slice(at + 1).toLowerCase().replace(/\.$/, '') };
}

export async function routeRecipients(q: Queryable, addresses: string[]): Promise<RoutedRecipients> {
  const parts = addresses.map((address) => ({ address, parts: split(address) }));
  const domains = [...new Set(parts.flatMap((p) => (p.parts ? [p.parts.domain] : [])))];
  const emailIds = [...new Set(parts.flatMap((p) => RETURN_PATH_LOCAL.exec(p.parts?.local ?? '')?.[1]?.toLowerCase() ?? []))];
  const routed: RoutedRecipients = { byAccount: new Map(), returnPaths: [] };
  if (domains.length === 0) return routed;
  const rows = await q.query<{ kind: 'domain' | 'email'; key: string; account_id: string; envelope_from: string | null }>(
    `SELECT 'domain' AS kind, name AS key, account_id, NULL AS envelope_from FROM domains
      WHERE name = ANY($1::text[]) AND receiving_enabled AND verified_at IS NOT NULL
     UNION ALL
     SELECT 'email', id::text, account_id, envelope_from FROM emails
      WHERE id = ANY($2::uuid[]) AND envelope_from IS NOT NULL`,
    [domains, emailIds],
  );
  const receiving = new Map(rows.filter((r) => r.kind === 'domain').map((r) => [r.key, r.account_id]));
  const returnPaths = new Map(rows.filter((r) => r.kind === 'email').map((r) => [r.envelope_from!.toLowerCase(), r.key]));
  for (const { address, parts: p } of parts) {
    if (!p) continue;
    const emailId = returnPaths.get(`${p.local}@${p.domain}`.toLowerCase());
    if (emailId) {
      routed.returnPaths.push({ address, emailId });
      continue;
    }
    const accountId = receiving.get(p.domain);
    if (!accountId) continue;
    const list = routed.byAccount.get(accountId) ?? [];
    if (!list.some((a) => a.toLowerCase() === address.toLowerCase())) list.push(address);
    routed.byAccount.set(accountId, list);
  }
  return routed;
}
