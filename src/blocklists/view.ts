// What the blocklist checks (blocklist_checks, written by round.ts) show: on a domain's page
// (GET /domains/:id `blocklists`: the domain's own checks and those of the addresses it sends
// from) and in the queue view (GET /queue `blocklists`: the outbound addresses' checks). Reads
// only: no lookup is made for a page.
import { array, boolean, isoTime, nullable, object, oneOfValues, string } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import type { TargetKind } from './answers.js';

type CheckResult = 'listed' | 'not_listed' | 'not_possible' | 'unknown';

/** A blocklist_checks row. */
export interface CheckRow {
  kind: TargetKind;
  target: string;
  zone: string;
  listed: boolean;
  result: CheckResult;
  return_codes: string[];
  reason: string | null;
  error: string | null;
  first_listed_at: Date | null;
  checked_at: Date;
}

interface BlocklistCheckView {
  kind: TargetKind;
  target: string;
  zone: string;
  listed: boolean;
  result: CheckResult;
  return_codes: string[];
  reason: string | null;
  error: string | null;
  first_listed_at: string | null;
  checked_at: string;
}

const BLOCKLIST_CHECK_SCHEMA = object({
  kind: oneOfValues(['ip', 'domain'], { description: 'An outbound address (POSTLINE_DNSBLS) or the sending domain (POSTLINE_DOMAIN_BLOCKLISTS).' }),
  target: string({ description: 'The address or the domain.' }),
  zone: string({ description: "The list's DNS zone." }),
  listed: boolean({
    description: 'Whether the last definite answer listed it; a time-out or a refusal to answer keeps the previous state.',
  }),
  result: oneOfValues(['listed', 'not_listed', 'not_possible', 'unknown'], {
    description:
      "What the last check got: `not_possible` when the list refused to answer (a public resolver's query, too many queries: see `reason`), never a listing; `unknown` when it did not answer (a time-out or SERVFAIL: see `error`).",
  }),
  return_codes: array(string(), { description: "The list's A records for a listing or a refusal (127.0.0.2, 127.255.255.254, …)." }),
  reason: nullable(string({ description: "The list's TXT record for a listing, or why the check was not possible." })),
  error: nullable(string({ description: 'Why the last check got no answer.' })),
  first_listed_at: nullable(isoTime()),
  checked_at: isoTime(),
});

/** GET /domains/:id `blocklists`. */
export const DOMAIN_BLOCKLISTS_SCHEMA = array(BLOCKLIST_CHECK_SCHEMA, {
  description:
    'Postline: what the DNS blocklists (POSTLINE_DOMAIN_BLOCKLISTS, POSTLINE_DNSBLS) last said of the domain, when verified, and of each outbound address it sends from, checked once per POSTLINE_DNSBL_INTERVAL; listings first. Empty until a first check or with no lists configured.',
});

/** GET /queue `blocklists`. */
export const OUTBOUND_BLOCKLISTS_SCHEMA = array(BLOCKLIST_CHECK_SCHEMA, {
  description:
    'What the DNS blocklists (POSTLINE_DNSBLS) last said of each outbound address of the nodes, checked once per POSTLINE_DNSBL_INTERVAL; listings first.',
});

export const checkView = (row: CheckRow): BlocklistCheckView => ({
  kind: row.kind,
  target: row.target,
  zone: row.zone,
  listed: row.listed,
  result: row.result,
  return_codes: row.return_codes,
  reason: row.reason,
  error: row.error,
  first_listed_at: row.first_listed_at?.toISOString() ?? null,
  checked_at: row.checked_at.toISOString(),
});

const ORDER = 'ORDER BY listed DESC, kind DESC, target, zone';

/**
 * The addresses a domain sends from, of the `known` ones (delivery/outbound-ips.ts' rule): those
 * of its pin (domains.outbound_ips) that a node has, or all of them when it is not pinned or its
 * pin names none of them.
 */
export function sendingAddresses(pin: readonly string[] | null, known: readonly string[]): string[] {
  const pinned = pin?.filter((ip) => known.includes(ip)) ?? [];
  return pinned.length > 0 ? pinned : [...known];
}

/** A domain's checks and those of the addresses it sends from, listings first. */
export async function domainBlocklists(q: Queryable, domain: { name: string; outbound_ips: string[] | null }): Promise<BlocklistCheckView[]> {
  const rows = await q.query<CheckRow>(`SELECT * FROM blocklist_checks WHERE (kind = 'domain' AND target = $1) OR kind = 'ip' ${ORDER}`, [domain.name]);
  const known = [...new Set(rows.filter((r) => r.kind === 'ip').map((r) => r.target))];
  const from = new Set(sendingAddresses(domain.outbound_ips, known));
  return rows.filter((r) => r.kind === 'domain' || from.has(r.target)).map(checkView);
}

/** The outbound addresses' checks, listings first. */
export async function outboundBlocklists(q: Queryable): Promise<BlocklistCheckView[]> {
  const rows = await q.query<CheckRow>(`SELECT * FROM blocklist_checks WHERE kind = 'ip' ${ORDER}`);
  return rows.map(checkView);
}
