// The queue at a glance, for one account: everything not yet final, per recipient domain and
// per state, with the oldest message's age and the last reply seen there; the domains rolled
// up to their providers; and what is paused. One aggregate over the account's unfinished
// deliveries (the deliveries_unfinished index), the last replies from destination_replies.
import type { Queryable } from '../db/database.js';
import type { ProviderTable } from '../providers/providers.js';
import { listPauses, type Pause } from './pauses.js';
import { readShapingStates, type ShapingView } from './shaping-states.js';
import { type IpWarmupProgress, ipWarmupProgress } from '../warmup/ip-warmup.js';
import { QUEUE_STATES, type QueueState, STATE_SQL, stateCountsSql, unfinishedSql } from './states.js';

type Counts = Record<QueueState, number>;

export interface LastReply {
  at: string;
  mx_host: string | null;
  /** The SMTP reply code (null for a local reason without one). */
  code: number | null;
  reply: string;
}

export interface PauseView {
  destination: string;
  kind: Pause['kind'];
  sending_domain: string | null;
  reason: string;
  since: string;
}

export interface DestinationSummary {
  domain: string;
  provider: string | null;
  counts: Counts;
  total: number;
  oldest_created_at: string;
  oldest_age_seconds: number;
  last_reply: LastReply | null;
  paused: PauseView | null;
}

interface ProviderSummary {
  provider: string;
  domains: number;
  counts: Counts;
  total: number;
  oldest_age_seconds: number;
  paused: PauseView | null;
}

interface QueueSummary {
  object: 'queue_summary';
  counts: Counts;
  total: number;
  oldest_age_seconds: number | null;
  destinations_total: number;
  /** The largest destinations first (by total, then oldest), up to the limit. */
  destinations: DestinationSummary[];
  has_more: boolean;
  providers: ProviderSummary[];
  pauses: PauseView[];
  /** How fast the installation sends to each destination with a limit or a recent throttling reply (delivery/shaping.ts). */
  shaping: ShapingView[];
  /** The outbound IPs' warm-up (warmup/ip-warmup.ts). */
  outbound_ips: IpWarmupProgress[];
}

export const pauseView = (p: Pause): PauseView => ({
  destination: p.name,
  kind: p.kind,
  sending_domain: p.sendingDomain,
  reason: p.reason,
  since: p.createdAt.toISOString(),
});

export function lastReplyOf(at: Date | null, mx: string | null, reply: string | null): LastReply | null {
  if (!at || reply === null) return null;
  const code = /^([2-5]\d\d)\b/.exec(reply);
  return { at: at.toISOString(), mx_host: mx, code: code ? Number(code[1]) : null, reply };
}

const zero = (): Counts => Object.fromEntries(QUEUE_STATES.map((s) => [s, 0])) as Counts;
const ageSeconds = (since: Date, now: number) => Math.max(0, Math.round((now - since.getTime()) / 1000));

/** A recipient domain's unfinished deliveries counted by state (stateCountsSql), and the last reply seen there. */
interface DestinationRow extends Counts {
  domain: string;
  oldest: Date;
  /** The oldest of its mail that is not scheduled for later; null when all of it is. */
  oldest_waiting: Date | null;
  mx: string | null;
  reply: string | null;
  attempted_at: Date | null;
}

const SUMMARY_SQL = `
SELECT a.*, r.mx, r.reply, r.attempted_at
  FROM (SELECT d.domain, ${stateCountsSql('d')}, min(d.created_at) AS oldest,
               min(d.created_at) FILTER (WHERE NOT (${STATE_SQL.scheduled('d')})) AS oldest_waiting
          FROM deliveries d
         WHERE d.account_id = $1 AND ${unfinishedSql('d')}
         GROUP BY d.domain) a
  LEFT JOIN destination_replies r ON r.account_id = $1 AND r.domain = a.domain`;

export async function queueSummary(
  q: Queryable,
  accountId: string,
  providers: ProviderTable,
  options: { limit: number; provider?: string },
): Promise<QueueSummary> {
  const [rows, pauses, shaping, outboundIps] = await Promise.all([
    q.query<DestinationRow>(SUMMARY_SQL, [accountId]),
    listPauses(q, accountId),
    readShapingStates(q),
    ipWarmupProgress(q),
  ]);
  const now = Date.now();
  const pauseOn = (kind: Pause['kind'], name: string | null) => {
    // A pause of all the account's mail before one of a single sending domain.
    const on = name === null ? [] : pauses.filter((p) => p.kind === kind && p.name === name);
    const pause = on.find((p) => p.sendingDomain === null) ?? on[0];
    return pause ? pauseView(pause) : null;
  };

  // The summary's oldest is of mail waiting to go: mail scheduled for later is not late.
  let oldestWaiting: Date | null = null;
  for (const r of rows) if (r.oldest_waiting && (!oldestWaiting || r.oldest_waiting < oldestWaiting)) oldestWaiting = r.oldest_waiting;

  let destinations: (DestinationSummary & { oldest: Date })[] = rows.map((r) => {
    const counts = Object.fromEntries(QUEUE_STATES.map((s) => [s, Number(r[s])])) as Counts;
    const provider = providers.providerOf(r.domain, r.mx ? [r.mx] : []);
    return {
      domain: r.domain,
      provider,
      counts,
      total: QUEUE_STATES.reduce((sum, s) => sum + counts[s], 0),
      oldest: r.oldest,
      oldest_created_at: r.oldest.toISOString(),
      oldest_age_seconds: ageSeconds(r.oldest, now),
      last_reply: lastReplyOf(r.attempted_at, r.mx, r.reply),
      paused: pauseOn('domain', r.domain) ?? pauseOn('provider', provider),
    };
  });

  const byProvider = new Map<string, ProviderSummary & { oldest: Date }>();
  for (const d of destinations) {
    if (d.provider === null) continue;
    let p = byProvider.get(d.provider);
    if (!p)
      byProvider.set(
        d.provider,
        (p = { provider: d.provider, domains: 0, counts: zero(), total: 0, oldest: d.oldest, oldest_age_seconds: 0, paused: pauseOn('provider', d.provider) }),
      );
    p.domains++;
    for (const s of QUEUE_STATES) p.counts[s] += d.counts[s];
    p.total += d.total;
    if (d.oldest < p.oldest) p.oldest = d.oldest;
  }

  const counts = zero();
  for (const d of destinations) for (const s of QUEUE_STATES) counts[s] += d.counts[s];

  if (options.provider !== undefined) destinations = destinations.filter((d) => d.provider === options.provider);
  destinations.sort((a, b) => b.total - a.total || a.oldest.getTime() - b.oldest.getTime() || (a.domain < b.domain ? -1 : 1));
  const shown = destinations.slice(0, options.limit).map(({ oldest: _, ...d }) => d);
  return {
    object: 'queue_summary',
    counts,
    total: QUEUE_STATES.reduce((sum, s) => sum + counts[s], 0),
    oldest_age_seconds: oldestWaiting ? ageSeconds(oldestWaiting, now) : null,
    destinations_total: destinations.length,
    destinations: shown,
    has_more: destinations.length > shown.length,
    providers: [...byProvider.values()]
      .sort((a, b) => b.total - a.total || (a.provider < b.provider ? -1 : 1))
      .map(({ oldest: since, ...p }) => ({ ...p, oldest_age_seconds: ageSeconds(since, now) })),
    pauses: pauses.map(pauseView),
    shaping,
    outbound_ips: outboundIps,
  };
}
