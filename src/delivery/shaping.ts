// Traffic shaping: how fast this node sends to each destination (a mailbox provider, or an MX
// host of no known provider), so that providers get mail the way they ask for it.
//
// Each destination has limits (providers/providers.ts: concurrent connections, messages per
// connection, messages per minute; null per minute: no limit until the provider asks for one)
// and a live rate that adapts to its throttling replies (a 421, or a 4xx that says rate limited /
// too many / try later). The controller is AIMD (additive increase, multiplicative decrease, as
// TCP's), built around what a throttling receiver measures: the messages it took from us over a
// sliding window, a minute (POSTLINE_SHAPING_QUIET; every time constant below is a share of it).
// The node keeps the same count: messages over the last window from when they were sent (the
// attempt says so, `sending`, once connected), less those refused by a throttling reply.
// - Decrease: a throttling reply cuts the rate to CUT (85 %) of the rate the destination
//   *accepted* over the last window, the best estimate of its limit, and remembers that rate as
//   the ceiling. Never from the declared limit, and never compounding: replies that come while
//   the rate is already at or under that cut change nothing, so a burst of 421s on parallel
//   connections, or a receiver's window still full of what went before the cut, count once.
// - The window paces too: while slowed, a message goes only while the last window holds less
//   than the ceiling's worth (or the rate's, when higher). Right after a burst filled the
//   receiver's window nothing goes until some of it has aged out (it would all be refused), then
//   mail goes as that window makes room, so a cut leaves no gap. Slowed, mail goes evenly: half
//   a second's worth at once (the worker's polling), not BURST_SECONDS.
// - Increase: after a probe period (a sixth of the window) without a throttling reply, unless
//   the window is what holds the mail back, the rate grows a step: fast back to NEAR_CEILING
//   (95 %) of the ceiling; then FIRST_STEP (2.5 %) of the ceiling a step while the window has not
//   gone past the ceiling; once it has without a refusal, the ceiling's hold decays, each step
//   twice the one before; and a rate not half used over the probe period doubles (nothing is
//   learnt, and the receiver's window empties too). Back at the limit (or, with none, at twice
//   the ceiling: no limit again) it is no longer slowed.
// - No more jobs than two a connection may wait between being let through and sending: more
//   would queue behind the connections when the node is slower than the declared rate, and
//   reach the receiver late, after a cut, to be refused together.
// - The line of slots handed to waiting jobs (below) runs at the limit while slowed, so the rows
//   given back come back as fast as the rate may grow; one that finds no token at its slot takes
//   the next free one. (Slots laid out at a low rate held a whole backlog at that rate long after
//   the rate had grown.)
// Why: the halving this replaced (from the declared rate, at most once per 10 s, a fifth back per
// quiet minute) undershot a receiver taking 200 a sliding minute with 600 declared. The first
// 20 s at 600 filled the receiver's minute and it refused everything for the next 40 s; each
// 10 s of those refusals halved the rate again, 600 → 300 → 150 → 75 → 37 → 18 a minute; the
// backlog's slots were laid out at that rate; and a fifth a minute took many minutes to come
// back: 70 a minute delivered, a quarter of attempts refused (docs/BENCHMARKS.md,
// bench/shaping-convergence.ts). A cut anchored on the accepted rate lands just under the
// receiver's limit whatever was declared; small steps near the ceiling cross it by little, so
// the next refusal finds few messages in flight; the window rule keeps refusals from repeating
// while the receiver's window drains. A receiver counting over a shorter window than ours is
// underestimated at first and found again by the growing steps, within a few windows.
//
// A job that finds no room is not sent: it gets the next free slot of its class (transactional
// before broadcast: each class has its own line of slots, and a transactional job takes a
// token whenever there is one), and the worker gives its rows back due at that time, with the
// reason as the last response of rows not tried yet. No attempt is counted and no event
// written: the mail waits for Postline, not for the recipient's server.
//
// The state is per node (each node learns from the replies it gets); the worker publishes it
// for the queue view (queue/shaping-states.ts) and the metrics.
import type { ShapingLimits } from '../providers/providers.js';

const MINUTE_MS = 60_000;
/** The window receivers count our messages over, the default of POSTLINE_SHAPING_QUIET: a sliding minute. */
const WINDOW_MS = 60_000;
/** The rate may grow a step after a sixth of the window without a throttling reply. */
const PROBES_PER_WINDOW = 6;
/** A throttling reply cuts the rate to this share of the rate the destination accepted over the last window. */
const CUT = 0.85;
/** Below this share of the ceiling (the rate accepted when the destination last throttled), the rate climbs back fast. */
const NEAR_CEILING = 0.95;
/** From there, a step up as a share of the ceiling; past the ceiling, each step is twice the one before. */
const FIRST_STEP = 0.025;
/** The rate never drops below this many messages a minute. */
const MIN_RATE = 6;
/** A limited destination not slowed by its replies may send this many seconds' worth at once. */
const BURST_SECONDS = 2;
/** Slowed, this many seconds' worth (at least two messages): even pacing, with room for the worker's polling. */
const SLOWED_BURST_SECONDS = 0.5;
/** A limited destination lets at most this many jobs per connection through that have not started sending yet. */
const WAITING_PER_CONNECTION = 2;
/** A job let through that has not said it is sending after this long never will (no connection, an error). */
const WAITING_MS = 10_000;

/** A reply that asks the sender to slow down (rather than one about this message or recipient). */
const THROTTLE_REPLY =
  /^421|^4\d\d[ -]4\.7\.(0|28)\b|rate.?limit|throttl|too many (connections|messages|concurrent|sessions)|try (again )?later|\bRL\d+|\[TS0?\d\]|temporarily (deferred|rate limited)|receiving mail (too quickly|at a rate)|unusual rate/i;

/** Greylisting also says "try later", but to every new sender once: it is no sign of sending too fast. */
const GREYLISTING = /gr[ae]ylist/i;

export function isThrottleReply(reply: string): boolean {
  return reply.startsWith('4') && THROTTLE_REPLY.test(reply) && !GREYLISTING.test(reply);
}

interface ShapingState {
  destination: string;
  limits: ShapingLimits;
  /** Messages per minute now; null: not limited. */
  ratePerMinute: number | null;
  /** Slowed by the destination's replies and not yet back at its limit. */
  throttled: boolean;
  /** Messages sent in the last minute, less those refused by a throttling reply. */
  sentLastMinute: number;
  lastSignal: { reply: string; at: Date } | null;
}

export type Slot = { go: true } | { go: false; until: Date; reason: string };

/** When messages went, oldest first: a queue with a moving head (Array#shift copies). */
class SendLog {
  private times: number[] = [];
  private head = 0;

  add(at: number, count: number): void {
    for (let i = 0; i < count; i++) this.times.push(at);
  }

  /** Takes back the latest message: the receiver refused one. */
  dropLatest(): void {
    if (this.times.length > this.head) this.times.pop();
  }

  /** Forgets messages that went at or before `before`. */
  forget(before: number): void {
    while (this.head < this.times.length && this.times[this.head]! <= before) this.head++;
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }

  /** Messages that went after `after`. */
  countAfter(after: number): number {
    let lo = this.head;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.times[mid]! <= after) lo = mid + 1;
      else hi = mid;
    }
    return this.times.length - lo;
  }

  /** When the `n`th message (0: the first) after `after` went. */
  nthAfter(after: number, n: number): number {
    return this.times[this.times.length - this.countAfter(after) + n]!;
  }
}

class Destination {
  rate: number | null;
  /** While slowed: messages a minute the destination accepted over the window when it last throttled. */
  private ceiling: number | null = null;
  /** Steps taken past the ceiling (or with the rate unused) since the last cut: each twice the one before. */
  private steps = 0;
  private tokens = 0;
  private refilledAt: number;
  /** Per class (0 transactional, 1 broadcast): the next free slot of its line of waiting jobs. */
  private nextSlot: number[] = [0, 0];
  /** Messages sent (when they went to the destination, not when they were let through), less those refused by a throttling reply. */
  private sent = new SendLog();
  /** Jobs let through and not yet sending (they wait for a connection): when each was let through, oldest first. */
  private waiting: { at: number; messages: number }[] = [];
  /** The last throttling reply, kept for the queue view after the rate has recovered. */
  lastSignal: { reply: string; at: number } | null = null;
  /** While slowed: when the rate last fell or rose. */
  private changedAt: number | null = null;
  private probeMs: number;

  get slowed(): boolean {
    return this.changedAt !== null;
  }

  constructor(
    readonly name: string,
    readonly limits: ShapingLimits,
    now: number,
    private windowMs: number,
  ) {
    this.probeMs = windowMs / PROBES_PER_WINDOW;
    this.rate = limits.messagesPerMinute;
    this.refilledAt = now;
    if (this.rate) this.tokens = this.capacity();
  }

  /** Tokens the bucket holds at most: BURST_SECONDS' worth, or SLOWED_BURST_SECONDS' (at least two) while slowed. */
  private capacity(): number {
    if (!this.slowed) return Math.max(1, (this.rate! * BURST_SECONDS) / 60);
    return Math.max(2, (this.rate! * SLOWED_BURST_SECONDS) / 60);
  }

  private refill(now: number): void {
    if (this.rate === null) return;
    this.tokens = Math.min(this.capacity(), this.tokens + ((now - this.refilledAt) * this.rate) / MINUTE_MS);
    this.refilledAt = now;
  }

  /** Messages sent over the last window (older ones than the window and the queue view's minute are forgotten). */
  private inWindow(now: number): number {
    this.sent.forget(now - Math.max(this.windowMs, MINUTE_MS));
    return this.sent.countAfter(now - this.windowMs);
  }

  /** Messages let through that are not sending yet (they count in the window as soon as they are let through). */
  private notYetSent(now: number): number {
    while (this.waiting.length > 0 && this.waiting[0]!.at <= now - WAITING_MS) this.waiting.shift();
    return this.waiting.reduce((n, w) => n + w.messages, 0);
  }

  /** A rate a minute as messages in one window. */
  private worth(perMinute: number): number {
    return (perMinute * this.windowMs) / MINUTE_MS;
  }

  /**
   * The most the last window may hold when a message goes: the rate's worth and the burst; while
   * slowed no less than the ceiling's worth, what the receiver's window took.
   */
  private windowLimit(): number {
    const paced = this.worth(this.rate!) + this.capacity();
    return this.ceiling === null ? paced : Math.max(paced, this.worth(this.ceiling));
  }

  /** When the last window holds less than its limit: now, or when enough of it has aged out. */
  private roomAt(now: number): number {
    const over = Math.floor(this.inWindow(now) + this.notYetSent(now) - this.windowLimit()) + 1;
    if (over <= 0) return now;
    return this.sent.nthAfter(now - this.windowMs, over - 1) + this.windowMs;
  }

  sentLastMinute(now: number): number {
    this.inWindow(now);
    return this.sent.countAfter(now - MINUTE_MS);
  }

  /** A step up once a probe period has passed without a throttling reply: true when the rate changed. */
  recover(now: number): boolean {
    if (this.changedAt === null || this.rate === null) return false;
    if (now - Math.max(this.changedAt, this.lastSignal!.at) < this.probeMs) return false;
    const held = this.inWindow(now);
    // The window holds the mail back, not the rate (it is still full of what went before the cut): nothing is learnt.
    if (held >= this.windowLimit() - 1) return false;
    this.refill(now);
    const ceiling = this.ceiling!;
    let next: number;
    if (this.rate < NEAR_CEILING * ceiling) next = Math.min(NEAR_CEILING * ceiling, Math.max(this.rate * 1.25, this.rate + ceiling / 10));
    // Half the rate or less used over the probe period: nothing is learnt, and the receiver's window empties too; it doubles.
    else if (this.sent.countAfter(now - this.probeMs) <= (this.rate * this.probeMs) / MINUTE_MS / 2) next = this.rate * 2;
    // Sending near the ceiling and not past it over a window yet: small steps, it refused there before.
    else if (held <= this.worth(ceiling)) next = this.rate + Math.max(1, ceiling * FIRST_STEP);
    // Past the ceiling over a window without a refusal: the ceiling's hold decays, each step twice the one before.
    else next = this.rate + Math.max(1, ceiling * FIRST_STEP * 2 ** this.steps++);
    next = Math.ceil(next);
    if (next >= (this.limits.messagesPerMinute ?? 2 * ceiling)) {
      this.rate = this.limits.messagesPerMinute;
      this.changedAt = null;
      this.ceiling = null;
      this.steps = 0;
    } else {
      this.rate = next;
      this.changedAt = now;
    }
    return true;
  }

  take(messages: number, priority: number, now: number): Slot {
    this.recover(now);
    if (this.rate === null) return { go: true };
    this.refill(now);
    const room = this.roomAt(now);
    // Jobs already let through wait for a connection: more would reach the destination late, past a cut, all at once.
    const pipelineFull = this.waiting.length >= this.limits.connections * WAITING_PER_CONNECTION;
    // Broadcast mail leaves the tokens to transactional mail while any of that waits for a slot.
    if (this.tokens >= 1 && room <= now && !pipelineFull && (priority === 0 || this.nextSlot[0]! <= now)) {
      this.tokens -= messages;
      this.waiting.push({ at: now, messages });
      return { go: true };
    }
    const perMessage = MINUTE_MS / this.rate;
    // Slowed, the line runs at the limit (or twice the ceiling): its rows come back as fast as the rate may grow.
    const spacing = this.slowed ? MINUTE_MS / Math.max(this.rate, this.limits.messagesPerMinute ?? 2 * this.ceiling!) : perMessage;
    const until = Math.max(now + (1 - this.tokens) * perMessage, pipelineFull ? now + spacing : now, room, this.nextSlot[priority] ?? 0);
    this.nextSlot[priority] = until + messages * spacing;
    const why = this.lastSignal ? `slowed after "${this.lastSignal.reply.slice(0, 120)}"` : 'its limit';
    return { go: false, until: new Date(until), reason: `451 4.4.5 Waiting for ${this.name}'s sending rate: ${this.rate} messages a minute (${why})` };
  }

  /** A job let through starts sending `messages` (0: it will not send after all): they count from now, when the destination sees them. */
  sending(messages: number, now: number): void {
    this.waiting.shift();
    this.sent.add(now, messages);
  }

  /** A throttling reply about one message: true when it changed the rate. */
  throttled(reply: string, now: number): boolean {
    this.lastSignal = { reply, at: now };
    this.sent.dropLatest();
    const accepted = (this.inWindow(now) * MINUTE_MS) / this.windowMs;
    const cut = Math.max(MIN_RATE, Math.floor(CUT * accepted));
    // Already at or under it: the reply is about what went before the last cut.
    if (this.slowed && cut >= this.rate!) return false;
    this.refill(now);
    this.ceiling = Math.max(MIN_RATE, accepted);
    this.steps = 0;
    this.rate = this.rate === null ? cut : Math.min(this.rate, cut);
    this.tokens = Math.min(this.tokens, 0);
    this.refilledAt = now;
    this.changedAt = now;
    return true;
  }
}

export class TrafficShaper {
  private destinations = new Map<string, Destination>();

  /** `windowMs`: the window receivers count over (POSTLINE_SHAPING_QUIET); the controller's time constants are shares of it. */
  constructor(
    private clock: () => number = Date.now,
    private windowMs = WINDOW_MS,
  ) {}

  private of(name: string, limits: ShapingLimits): Destination {
    let d = this.destinations.get(name);
    if (!d) this.destinations.set(name, (d = new Destination(name, limits, this.clock(), this.windowMs)));
    return d;
  }

  /** Whether a job of `messages` to `destination` may go now (priority 0 transactional, 1 broadcast), or when it may. */
  take(destination: string, limits: ShapingLimits, messages: number, priority: number): Slot {
    return this.of(destination, limits).take(messages, priority, this.clock());
  }

  /**
   * A job that take() let through is sending its `messages` now (connected, right before the
   * transaction; 0: it will not send, warm-up held it): the window counts them from now, when the
   * destination sees them. A job let through that never says (no connection, an error) stops
   * counting after WAITING_MS.
   */
  sending(destination: string, limits: ShapingLimits, messages: number): void {
    this.of(destination, limits).sending(messages, this.clock());
  }

  /** The destination's server answered `reply`, a throttling reply (isThrottleReply), for one message; true when the rate changed. */
  throttled(destination: string, limits: ShapingLimits, reply: string): boolean {
    return this.of(destination, limits).throttled(reply, this.clock());
  }

  /** Moves recovering rates on (also when nothing is sent); the destinations whose rate changed. */
  tick(): string[] {
    const now = this.clock();
    return [...this.destinations.values()].filter((d) => d.recover(now)).map((d) => d.name);
  }

  states(): ShapingState[] {
    const now = this.clock();
    return [...this.destinations.values()].map((d) => ({
      destination: d.name,
      limits: d.limits,
      ratePerMinute: d.rate,
      throttled: d.slowed,
      sentLastMinute: d.sentLastMinute(now),
      lastSignal: d.lastSignal && { reply: d.lastSignal.reply, at: new Date(d.lastSignal.at) },
    }));
  }
}
