// Traffic shaping: how fast this node sends to each destination (a mailbox provider, or an MX
// host of no known provider), so that providers get mail the way they ask for it.
//
// Each destination has limits (providers/providers.ts: concurrent connections, messages per
// connection, messages per minute; null per minute: no limit until the provider asks for one)
// and a live rate that adapts:
// - a throttling reply (421, or a 4xx that says rate limited / too many / try later) halves the
//   rate (from the rate just observed when there was no limit), at most once per HALVE_GAP_MS so
//   that one burst of 421s on parallel connections counts once;
// - after a quiet period without one (POSTLINE_SHAPING_QUIET, a minute), the rate grows by a
//   fifth each quiet period, back to the limit (or, with none, to twice the rate observed when
//   throttled, then no limit again).
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
/** Throttling replies closer together than this count as one signal. */
const HALVE_GAP_MS = 10_000;
/** How long without a throttling reply before the rate starts to recover, and each step of it (the default). */
const QUIET_MS = 60_000;
/** The rate never drops below this many messages a minute. */
const MIN_RATE = 6;
/** A limited destination may send this many seconds' worth at once. */
const BURST_SECONDS = 2;

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
  /** Messages sent in the last minute. */
  sentLastMinute: number;
  lastSignal: { reply: string; at: Date } | null;
}

export type Slot = { go: true } | { go: false; until: Date; reason: string };

class Destination {
  rate: number | null;
  /** Rate to recover to when the limits set none (twice what was observed when throttled). */
  private ceiling: number | null = null;
  private tokens = 0;
  private refilledAt: number;
  /** Per class (0 transactional, 1 broadcast): the next free slot of its line of waiting jobs. */
  private nextSlot: number[] = [0, 0];
  private sent: number[] = [];
  /** The last throttling reply, kept for the queue view after the rate has recovered. */
  lastSignal: { reply: string; at: number } | null = null;
  /** While recovering: when the rate last fell or rose. */
  private changedAt: number | null = null;

  get slowed(): boolean {
    return this.changedAt !== null;
  }
  private halvedAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly name: string,
    readonly limits: ShapingLimits,
    now: number,
    private quietMs: number,
  ) {
    this.rate = limits.messagesPerMinute;
    this.refilledAt = now;
    if (this.rate) this.tokens = this.capacity();
  }

  private capacity(): number {
    return Math.max(1, (this.rate! * BURST_SECONDS) / 60);
  }

  private refill(now: number): void {
    if (this.rate === null) return;
    this.tokens = Math.min(this.capacity(), this.tokens + ((now - this.refilledAt) * this.rate) / MINUTE_MS);
    this.refilledAt = now;
  }

  sentLastMinute(now: number): number {
    while (this.sent.length > 0 && this.sent[0]! <= now - MINUTE_MS) this.sent.shift();
    return this.sent.length;
  }

  recover(now: number): boolean {
    if (this.changedAt === null || this.rate === null) return false;
    if (now - Math.max(this.changedAt, this.lastSignal!.at) < this.quietMs) return false;
    this.refill(now);
    const target = this.limits.messagesPerMinute ?? this.ceiling!;
    const next = Math.ceil(this.rate * 1.2);
    this.rate = next >= target ? this.limits.messagesPerMinute : next;
    this.changedAt = this.rate === this.limits.messagesPerMinute ? null : now;
    return true;
  }

  take(messages: number, priority: number, now: number): Slot {
    this.recover(now);
    if (this.rate === null) {
      this.record(messages, now);
      return { go: true };
    }
    this.refill(now);
    // Broadcast mail leaves the tokens to transactional mail while any of that waits for a slot.
    if (this.tokens >= 1 && (priority === 0 || this.nextSlot[0] <= now)) {
      this.tokens -= messages;
      this.record(messages, now);
      return { go: true };
    }
    const perMessage = MINUTE_MS / this.rate;
    const until = Math.max(now + (1 - this.tokens) * perMessage, this.nextSlot[priority] ?? 0);
    this.nextSlot[priority] = until + messages * perMessage;
    const why = this.lastSignal ? `slowed after "${this.lastSignal.reply.slice(0, 120)}"` : 'its limit';
    return { go: false, until: new Date(until), reason: `451 4.4.5 Waiting for ${this.name}'s sending rate: ${this.rate} messages a minute (${why})` };
  }

  private record(messages: number, now: number): void {
    for (let i = 0; i < messages; i++) this.sent.push(now);
  }

  /** A throttling reply: true when it changed the rate. */
  throttled(reply: string, now: number): boolean {
    this.lastSignal = { reply, at: now };
    if (now - this.halvedAt < HALVE_GAP_MS) return false;
    this.halvedAt = now;
    this.refill(now);
    const from = this.rate ?? Math.max(MIN_RATE * 2, this.sentLastMinute(now));
    if (this.rate === null) this.ceiling = from * 2;
    this.rate = Math.max(MIN_RATE, Math.floor(from / 2));
    this.tokens = Math.min(this.tokens, 0);
    this.refilledAt = now;
    this.changedAt = now;
    return true;
  }
}

export class TrafficShaper {
  private destinations = new Map<string, Destination>();

  constructor(
    private clock: () => number = Date.now,
    private quietMs = QUIET_MS,
  ) {}

  private of(name: string, limits: ShapingLimits): Destination {
    let d = this.destinations.get(name);
    if (!d) this.destinations.set(name, (d = new Destination(name, limits, this.clock(), this.quietMs)));
    return d;
  }

  /** Whether a job of `messages` to `destination` may go now (priority 0 transactional, 1 broadcast), or when it may. */
  take(destination: string, limits: ShapingLimits, messages: number, priority: number): Slot {
    return this.of(destination, limits).take(messages, priority, this.clock());
  }

  /** The destination's server answered `reply`, a throttling reply (isThrottleReply); true when the rate changed. */
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
