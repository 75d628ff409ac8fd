// Warm-up of outbound IPs: when POSTLINE_OUTBOUND_IPS lists several addresses, each of them
// builds its reputation like a new domain does, on the default schedule (schedule.ts): daily
// caps per mailbox provider from the day a node first saw it in its configuration
// (outbound_ip_warmup.started_at). The count is shared by every node in
// outbound_ip_warmup_sent, one UPSERT per job, as warmup-gate.ts counts a domain's.
//
// A job goes from the first address of its pool (in the round-robin order the delivery worker
// gives) that has room for some of it: an address at its cap passes the job to the next one.
// When none has room, bulk mail waits for the earliest next day among them (BROADCAST_LAG_MS
// later, so that transactional mail goes first), with the reason as its last response and, the
// first time an email is held, an email.delivery_delayed event with it. Transactional mail is
// never held, as by a domain's warm-up (warmup-gate.ts): it goes from the first address with
// room, or from the first address over its cap, and counts, leaving less room for bulk mail;
// a domain whose `warmup.cap_transactional` is on has its transactional mail held here too.
// Only providers of the provider table are capped, as for domains.
import type { Db, Queryable } from '../db/database.js';
import { BROADCAST_LAG_MS, type GrantedRow, WARMUP_HOLD_PREFIX } from './warmup-gate.js';
import { capOf, DEFAULT_SCHEDULE, dayStart, lastDay, warmupDay } from './schedule.js';

interface IpStartedRow {
  ip: string;
  started_at: Date;
}

interface IpCounted {
  ip: string;
  provider: string;
  day: number;
}

interface IpAdmission {
  /** The address the job goes from; undefined: the system chooses (no addresses listed). */
  ip: string | undefined;
  granted: number;
  /** Every address of the pool is at its cap: the rest waits until `until`. */
  held?: { until: Date; reason: string };
  counted?: IpCounted;
}

export class IpWarmupGate {
  private started: Promise<void> | undefined;

  /** `ips`: POSTLINE_OUTBOUND_IPS; warm-up applies only when there are several. */
  constructor(
    private db: Db,
    private ips: readonly string[],
    private clock: () => number = Date.now,
  ) {}

  get active(): boolean {
    return this.ips.length > 1;
  }

  /** Records the addresses this node has that no node had before: their warm-up begins now. */
  private start(): Promise<void> {
    this.started ??= this.db
      .query('INSERT INTO outbound_ip_warmup (ip) SELECT unnest($1::text[]) ON CONFLICT (ip) DO NOTHING', [this.ips])
      .then(() => undefined)
      .catch((err) => {
        this.started = undefined;
        throw err;
      });
    return this.started;
  }

  /**
   * From which of `pool` (in the order to try them) `messages` to `provider` (null: no known
   * provider) go, and how many of them may go from it today. `capped`: the cap holds these
   * messages (bulk mail, or a domain that caps its transactional mail); otherwise all of them
   * go and count. `bulk`: held mail waits BROADCAST_LAG_MS longer.
   */
  async admit(pool: readonly string[], provider: string | null, messages: number, { capped, bulk }: { capped: boolean; bulk: boolean }): Promise<IpAdmission> {
    if (!this.active || !provider || pool.length === 0) return { ip: pool[0], granted: messages };
    await this.start();
    const rows = await this.db.query<IpStartedRow>('SELECT ip, started_at FROM outbound_ip_warmup WHERE ip = ANY($1::text[])', [pool]);
    const startedAt = new Map(rows.map((r) => [r.ip, r.started_at]));
    const now = this.clock();
    const full: { ip: string; day: number; cap: number; next: Date }[] = [];
    for (const ip of pool) {
      const since = startedAt.get(ip);
      const day = since ? warmupDay(since, now) : 1;
      const cap = since ? capOf(DEFAULT_SCHEDULE, day) : null;
      if (cap === null) return { ip, granted: messages };
      // Capped: as many as the cap leaves. Not capped: all of them, from an address with room.
      const [row] = await this.db.query<GrantedRow>(
        `INSERT INTO outbound_ip_warmup_sent AS w (ip, provider, day, sent, granted)
         VALUES ($1, $2, $3, CASE WHEN $6::boolean THEN LEAST($4::int, $5::int) ELSE $4::int END, CASE WHEN $6::boolean THEN LEAST($4::int, $5::int) ELSE $4::int END)
         ON CONFLICT (ip, provider, day) DO UPDATE
           SET sent = w.sent + CASE WHEN $6::boolean THEN LEAST($4::int, GREATEST($5::int - w.sent, 0)) ELSE $4::int END,
               granted = CASE WHEN $6::boolean THEN LEAST($4::int, GREATEST($5::int - w.sent, 0)) ELSE $4::int END
           WHERE w.sent < $5::int
         RETURNING granted`,
        [ip, provider, day, messages, cap, capped],
      );
      const granted = row?.granted ?? 0;
      if (granted > 0) return { ip, granted, counted: { ip, provider, day } };
      full.push({ ip, day, cap, next: dayStart(since!, day + 1) });
    }
    if (!capped) return this.overCap(full[0]!, provider, messages);
    const first = full.reduce((a, b) => (b.next < a.next ? b : a));
    // In address order, whichever address this message's rotation tried first: one reason for all.
    const each = [...full]
      .sort((a, b) => a.ip.localeCompare(b.ip, 'en', { numeric: true }))
      .map((f) => `${f.ip} (day ${f.day} of ${lastDay(DEFAULT_SCHEDULE)}: ${f.cap})`)
      .join(', ');
    const until = new Date(first.next.getTime() + (bulk ? BROADCAST_LAG_MS : 0));
    return {
      ip: undefined,
      granted: 0,
      held: {
        until,
        reason: `${WARMUP_HOLD_PREFIX}the outbound IPs' warm-up: ${each} sent all they may to ${provider} today; next try at ${until.toISOString()} (${first.ip}'s next day)`,
      },
    };
  }

  /** Mail the cap does not hold, when every address is at its cap: it goes from the first one tried, counted past its cap. */
  private async overCap(first: { ip: string; day: number }, provider: string, messages: number): Promise<IpAdmission> {
    await this.db.query('UPDATE outbound_ip_warmup_sent SET sent = sent + $4::int WHERE ip = $1 AND provider = $2 AND day = $3', [
      first.ip,
      provider,
      first.day,
      messages,
    ]);
    return { ip: first.ip, granted: messages, counted: { ip: first.ip, provider, day: first.day } };
  }

  /** Messages admitted from an address that did not reach the provider after all: they count when they go. */
  async giveBack(counted: IpCounted, messages: number): Promise<void> {
    await this.db.query('UPDATE outbound_ip_warmup_sent SET sent = GREATEST(sent - $4::int, 0) WHERE ip = $1 AND provider = $2 AND day = $3', [
      counted.ip,
      counted.provider,
      counted.day,
      messages,
    ]);
  }
}

export interface IpWarmupProgress {
  ip: string;
  status: 'warming_up' | 'ended';
  started_at: string;
  day: number;
  days: number;
  per_provider_daily: number | null;
  next_day_at: string | null;
  today: { provider: string; sent: number; remaining: number }[];
}

/** An outbound IP with what it sent to each provider on each day (json, parsed by pg). */
interface IpProgressRow extends IpStartedRow {
  sent: { provider: string; sent: number; day: number }[];
}

/** Where each outbound IP is in its warm-up (those any node has seen), for the queue view. */
export async function ipWarmupProgress(q: Queryable, now = Date.now()): Promise<IpWarmupProgress[]> {
  const rows = await q.query<IpProgressRow>(
    `SELECT w.ip, w.started_at, coalesce(json_agg(json_build_object('provider', s.provider, 'sent', s.sent, 'day', s.day) ORDER BY s.provider)
              FILTER (WHERE s.ip IS NOT NULL), '[]') AS sent
       FROM outbound_ip_warmup w LEFT JOIN outbound_ip_warmup_sent s ON s.ip = w.ip
      GROUP BY w.ip, w.started_at ORDER BY w.ip`,
  );
  return rows.map((r) => {
    const startedAt: Date = r.started_at;
    const day = warmupDay(startedAt, now);
    const cap = capOf(DEFAULT_SCHEDULE, day);
    const sent = (typeof r.sent === 'string' ? JSON.parse(r.sent) : r.sent) as { provider: string; sent: number; day: number }[];
    return {
      ip: r.ip,
      status: cap === null ? 'ended' : 'warming_up',
      started_at: startedAt.toISOString(),
      day,
      days: lastDay(DEFAULT_SCHEDULE),
      per_provider_daily: cap,
      next_day_at: cap === null ? null : dayStart(startedAt, day + 1).toISOString(),
      today: cap === null ? [] : sent.filter((s) => s.day === day).map((s) => ({ provider: s.provider, sent: s.sent, remaining: Math.max(0, cap - s.sent) })),
    };
  });
}
