// The delivery worker's side of warm-up: before a job to a mailbox provider goes, it asks how
// many of its messages the sending domain may still send to that provider today. One UPSERT
// per job adds what it may send to the day's count in warmup_sent, so every node shares the
// count and two nodes never both take the last messages of a day's cap; messages the provider
// then defers (or that were not tried) are given back, a second statement only for such jobs.
// So the count is of messages the provider accepted or refused for good.
//
// Only bulk mail is held (bulk-mail.ts: broadcasts, and API or SMTP mail with List-Unsubscribe
// or Precedence: bulk/list/junk), unless the domain's `warmup.cap_transactional` is on:
// transactional mail always goes, and still counts, since the provider sees it too (a day's
// password resets leave less room for that day's newsletter).
//
// Only providers of the provider table (providers/providers.ts) are capped: warm-up builds
// reputation with the mailbox providers that keep one per sender; mail to an MX host of no
// known provider (a company's own server, a small host) is not limited by it.
//
// What is over the cap is not failed: the worker gives it back due when the domain's next day
// begins, with the reason as its last response (like traffic shaping) and, the first time an
// email is held, an email.delivery_delayed event with that reason (queue/warmup-release.ts).
// Transactional mail is due at that moment and bulk mail BROADCAST_LAG_MS later, so that mail
// that waited is claimed transactional first. A domain's warm-up settings come with the claim
// (queue/claim.ts): a change through the API holds for mail claimed after it.
import type { Db } from '../db/database.js';
import { capOf, dayStart, lastDay, warmupDay, type WarmupStep } from './schedule.js';

export const BROADCAST_LAG_MS = 5 * 60_000;

export interface DomainWarmup {
  domainId: string;
  name: string;
  startedAt: Date;
  schedule: readonly WarmupStep[];
  /** true: transactional mail is held at the cap too; false (the default): only bulk mail is. */
  capTransactional: boolean;
}

/** How every reason of a warm-up hold begins (this file's and ip-warmup.ts'): the one delivery_delayed per email is found by it. */
export const WARMUP_HOLD_PREFIX = '451 4.4.5 Held by ';

/** What a count's UPSERT reads back: how many it added (warmup_sent here, outbound_ip_warmup_sent in ip-warmup.ts). */
export interface GrantedRow {
  granted: number;
}

/** The day's count after a domain's UPSERT. */
interface CountedRow extends GrantedRow {
  sent: number;
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
   * null for no known provider) may go now; the rest wait until `held.until`. `bulk`
   * (bulk-mail.ts): whether the job is bulk mail, which the cap holds; transactional mail is
   * held only with `capTransactional`, and counts either way.
   */
  async admit(warmup: DomainWarmup | null, provider: string | null, messages: number, bulk: boolean): Promise<Admission> {
    if (!warmup || !provider) return { granted: messages };
    const day = warmupDay(warmup.startedAt, this.clock());
    const cap = capOf(warmup.schedule, day);
    if (cap === null) return { granted: messages };
    const capped = bulk || warmup.capTransactional;
    // Capped: as many as the cap leaves; not capped: all of them, counted.
    const [row] = await this.db.query<CountedRow>(
      `INSERT INTO warmup_sent AS w (domain_id, provider, day, sent, granted)
       VALUES ($1, $2, $3, CASE WHEN $6::boolean THEN LEAST($4::int, $5::int) ELSE $4::int END, CASE WHEN $6::boolean THEN LEAST($4::int, $5::int) ELSE $4::int END)
       ON CONFLICT (domain_id, provider, day) DO UPDATE
         SET sent = w.sent + CASE WHEN $6::boolean THEN LEAST($4::int, GREATEST($5::int - w.sent, 0)) ELSE $4::int END,
             granted = CASE WHEN $6::boolean THEN LEAST($4::int, GREATEST($5::int - w.sent, 0)) ELSE $4::int END
       RETURNING granted, sent`,
      [warmup.domainId, provider, day, messages, cap, capped],
    );
    const granted: number = row!.granted;
    const counted = { domainId: warmup.domainId, provider, day };
    if (granted >= messages) return { granted, counted };
    const until = new Date(dayStart(warmup.startedAt, day + 1).getTime() + (bulk ? BROADCAST_LAG_MS : 0));
    const reason =
      `${WARMUP_HOLD_PREFIX}the sending domain's warm-up: ${row!.sent} of ${cap} messages to ${provider} today ` +
      `(${warmup.name}, day ${day} of ${lastDay(warmup.schedule)}); next try at ${until.toISOString()}`;
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
