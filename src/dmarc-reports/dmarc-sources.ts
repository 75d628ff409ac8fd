// GET /domains/:id/dmarc-sources?since=: who sends mail in one of the caller's domains' name, by
// the DMARC reports received since then (default: 30 days ago): each source address's messages
// and the share that passed DMARC, summed in SQL from dmarc_report_rows' (domain, period) index,
// and whether the address is Postline's own. Postline's own: POSTLINE_OUTBOUND_IPS, addresses
// nodes warmed up (outbound_ip_warmup: every address a node sent from by configuration), and
// the addresses of the SMTP host name, which the recommended SPF record (`a:<host>`)
// authorizes. Deliveries do not record their local address, so with none of these configured
// the system's choice of address is known only through the host name's A/AAAA records.
import { ApiError } from '../api/errors.js';
import type { Route } from '../api/route.js';
import { boolean, constant, array, isoTime, object, string } from '../api/schema.js';
import type { Db } from '../db/database.js';
import type { DnsResolver } from '../dns/resolver.js';
import { accountDomainOr404, REPORT_DOMAIN_PARAMS } from './account-domain.js';
import { DMARC_SOURCE_SCHEMA } from './report-views.js';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;
/** Sources listed at most, most messages first; has_more says when there were more. */
const MAX_SOURCES = 1000;
const HOST_LOOKUP_MS = 2_000;
// A date (2026-11-26), or a date and time with an optional zone (2026-11-26T09:00:00Z).
const ISO = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;
const SINCE_MESSAGE = 'be an ISO 8601 date or date-time (2026-11-26 or 2026-11-26T09:00:00Z)';

interface SourcesDeps {
  db: Db;
  dns: DnsResolver;
  outboundIps: readonly string[];
  smtpHostname: string;
}

interface SourceRow {
  source_ip: string;
  messages: number;
  passing: number;
}

function parseSince(value: string | undefined, now: number): Date {
  if (value === undefined) return new Date(now - DEFAULT_DAYS * DAY_MS);
  const date = ISO.test(value) ? new Date(value.length === 10 ? `${value}T00:00:00Z` : value.replace(' ', 'T')) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) throw new ApiError('invalid_parameter', `The \`since\` parameter must ${SINCE_MESSAGE}.`);
  return date;
}

/** The SMTP host name's addresses (cached by the resolver); a resolver failing or slow to answer leaves them out rather than holding the answer. */
function hostAddresses(deps: SourcesDeps): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), HOST_LOOKUP_MS);
  });
  const lookup = deps.dns.addresses(deps.smtpHostname).catch(() => [] as string[]);
  return Promise.race([lookup, late]).finally(() => clearTimeout(timer));
}

/** The addresses Postline sends from, as far as it knows them (see the top of the file). */
async function ownAddresses(deps: SourcesDeps): Promise<Set<string>> {
  const [warmed, ofHost] = await Promise.all([deps.db.query<{ ip: string }>('SELECT ip FROM outbound_ip_warmup'), hostAddresses(deps)]);
  return new Set([...deps.outboundIps, ...warmed.map((r) => r.ip), ...ofHost].map(normalIp));
}

/** One spelling per address: lower case, an IPv4-mapped IPv6 address as its IPv4 one. */
const normalIp = (ip: string) =>
  ip
    .trim()
    .toLowerCase()
    .replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');

export function dmarcSources(deps: SourcesDeps): Route {
  return {
    method: 'GET',
    url: '/domains/:id/dmarc-sources',
    doc: {
      summary: "Who sends in a domain's name, by its DMARC reports",
      description:
        "Sums the rows of the DMARC reports whose period began at or after `since` by source address: messages, those that passed DMARC (DKIM or SPF aligned and passed), and whether the address is Postline's own. Most messages first, at most 1000 sources.",
      tags: ['domains'],
      addition: true,
      params: REPORT_DOMAIN_PARAMS,
      query: {
        since: string({
          pattern: ISO.source,
          'x-message': SINCE_MESSAGE,
          description: `Reports whose period began at or after this time (ISO 8601); default ${DEFAULT_DAYS} days ago.`,
        }),
      },
      response: {
        status: 200,
        schema: object({ object: constant('list'), has_more: boolean(), since: isoTime(), data: array(DMARC_SOURCE_SCHEMA) }),
      },
    },
    async handler({ principal, params, query }) {
      const since = parseSince(query.since, Date.now());
      const domain = await accountDomainOr404(deps.db, principal.accountId, params.id);
      const [rows, own] = await Promise.all([
        deps.db.query<SourceRow>(
          `SELECT source_ip, sum(count)::bigint AS messages,
                  coalesce(sum(count) FILTER (WHERE dkim_aligned = 'pass' OR spf_aligned = 'pass'), 0)::bigint AS passing
             FROM dmarc_report_rows
            WHERE domain_id = $1 AND period_begin >= $2 AND account_id = $3
            GROUP BY source_ip ORDER BY messages DESC, source_ip LIMIT $4`,
          [domain.id, since, principal.accountId, MAX_SOURCES + 1],
        ),
        ownAddresses(deps),
      ]);
      const data = rows.slice(0, MAX_SOURCES).map((r) => {
        const messages = Number(r.messages);
        const passing = Number(r.passing);
        return { source_ip: r.source_ip, messages, passing, pass_rate: messages > 0 ? passing / messages : 0, postline: own.has(normalIp(r.source_ip)) };
      });
      return { body: { object: 'list', has_more: rows.length > MAX_SOURCES, since: since.toISOString(), data } };
    },
  };
}
