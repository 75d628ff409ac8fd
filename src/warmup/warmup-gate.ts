// The delivery worker's side of warm-up: before a job to a mailbox provider goes, it asks how
// many of its messages the sending domain may still send to that provider today. One UPSERT
// per job adds what it may send to the day's count in warmup_sent, so every node shares the
// count and two nodes never both take the last messages of a day's cap; messages the provider
// then defers (or that were not tried) are given back, a second statement only for such jobs.
// So the count is of messages the provider accepted or refused for good.
//
// Only providers of the provider table (providers/providers.ts) are capped: warm-up builds
// reputation with the mailbox providers that keep one per sender; mail to an MX host of no
// known provider (a company's own server, a small host) is not limited by it.
//
// What is over the cap is not failed: the worker gives it back due when the domain's next day
// begins, with the reason as its last response (like traffic shaping). Transactional mail is
// due at that moment and broadcast mail BROADCAST_LAG_MS later, so that mail that waited is
// claimed transactional first. A domain's warm-up settings come with the claim
// (queue/claim.ts): a change through the API holds for mail claimed after it.
import type { Db } from '../db/database.js';
import { capOf, dayStart, lastDay, warmupDay, type WarmupStep } from './schedule.js';

export const BROADCAST_LAG_MS = 5 * 60_000;

export interface DomainWarmup {
  domainId: string;
  name: string;
  startedAt: Date;
  schedule: readonly WarmupStep[];
}

/** What a count's UPSERT reads back: how many it added (warmup_sent here, outbound_ip_warmup_sent in ip-warmup.ts). */
export interface GrantedRow {
  granted: number;
}

/** Where an admission was counted, to give back what did not go (giveBack). */
interface Counted {
  domainId: string;
  provider: string;
  day: number;
}

interface Admission {
  granted: number;
  /** The rest of the job: it waits until `until`. */
  held?: { until: Date; reason: string };
  counted?: Counted;
}

export class WarmupGate {
  constructor(
    private db: Db,
    private clock: () => number = Date.now,
  ) {}

  /**
   * How many of `messages` (a job from a domain with `warmup`, null for none, to `provider`,
   * null for no known provider) may go now; the rest wait until `held.until`.
   */
  async admit(warmup: DomainWarmup | null, provider: string | null, messages: number, broadcast: boolean): Promise<Admission> {
    if (!warmup || !provider) return { granted: messages };
    const day = warmupDay(warmup.startedAt, this.clock());
    const cap = capOf(warmup.schedule, day);
    if (cap === null) return { granted: messages };
    const [row] = await this.db.query<GrantedRow>(
      `INSERT INTO warmup_sent AS w (domain_id, provider, day, sent, granted) VALUES ($1, $2, $3, LEAST($4::int, $5::int), LEAST($4::int, $5::int))
       ON CONFLICT (domain_id, provider, day) DO UPDATE
         SET sent = w.sent + LEAST($4::int, GREATEST($5::int - w.sent, 0)), granted = LEAST($4::int, GREATEST($5::int - w.sent, 0))
       RETURNING granted`,
      [warmup.domainId, provider, day, messages, cap],
    );
    const granted: number = row!.granted;
    const counted = { domainId: warmup.domainId, provider, day };
    if (granted >= messages) return { granted, counted };
    const until = new Date(dayStart(warmup.startedAt, day + 1).getTime() + (broadcast ? BROADCAST_LAG_MS : 0));
    const reason = `451 4.4.5 Warm-up of ${warmup.name}: day ${day} of ${lastDay(warmup.schedule)} allows ${cap} messages to ${provider}, all sent; waiting for day ${day + 1}`;
    return { granted, held: { until, reason }, counted };
  }

  /**
   * Messages admitted that did not reach the provider after all (deferred, or not tried): they
   * go again later and count then. Without this, a provider that defers (a 421 storm) would use
   * up the day's cap with retries of the same messages.
   */
  async giveBack(counted: Counted, messages: number): Promise<void> {
    await this.db.query('UPDATE warmup_sent SET sent = GREATEST(sent - $4::int, 0) WHERE domain_id = $1 AND provider = $2 AND day = $3', [
      counted.domainId,
      counted.provider,
      counted.day,
      messages,
    ]);
  }
}
