// Scheduling (resend-compat-notes §10): reading `scheduled_at`, and what a scheduled email
// looks like when it is accepted.
//
// `scheduled_at` is ISO 8601 or natural language ("in 1 min", "tomorrow at 9am", "Friday at
// 3pm ET"), read by chrono-node. Times without a zone are UTC. The whole string must be a
// time: chrono finds times inside any text ("call me at noon tomorrow, thanks"), and a
// request whose words were half ignored must not be sent at a guess.
//
// A scheduled email is composed, signed and committed like any other, but it is recorded as
// `email.scheduled` with last_event 'scheduled', and its deliveries wait with status
// 'scheduled' until release-scheduled.ts queues them (0007_scheduling.sql).
import * as chrono from 'chrono-node';
import { validation } from '../api/errors.js';
import { MAX_SCHEDULE_AHEAD, MAX_SCHEDULE_AHEAD_MS } from '../api/limits.js';
import { lastEventOf } from '../events/record-events.js';
import type { DeliveryStatus } from '../queue/delivery-status.js';

/** 2026-08-05T11:52:01.858Z, 2026-08-05 11:52, 2026-08-05T11:52:01+02:00 … */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Longer than any time a person writes. chrono reads about 10 µs a character on the event
 * loop: a 50 MB `scheduled_at` held every request up for seconds.
 */
export const MAX_SCHEDULED_AT_LENGTH = 256;

/** Reads a `scheduled_at` value; throws 422 validation_error naming `field`. */
export function parseScheduledAt(value: unknown, now = new Date(), field = 'scheduled_at'): Date {
  const hint = `an ISO 8601 date or a time such as "in 1 min", "tomorrow at 9am" or "Friday at 3pm ET"`;
  if (typeof value !== 'string') throw validation(`The \`${field}\` field must be a string: ${hint}.`);
  if (value.length > MAX_SCHEDULED_AT_LENGTH) throw validation(`The \`${field}\` field must be at most ${MAX_SCHEDULED_AT_LENGTH} characters.`);
  const date = parseTime(value.trim(), now);
  if (!date) throw validation(`The \`${field}\` field must be ${hint}.`);
  if (date.getTime() <= now.getTime()) throw validation(`The \`${field}\` time must be in the future.`);
  if (date.getTime() - now.getTime() > MAX_SCHEDULE_AHEAD_MS) throw validation(`The \`${field}\` time must be at most ${MAX_SCHEDULE_AHEAD} in the future.`);
  return date;
}

function parseTime(text: string, now: Date): Date | undefined {
  if (ISO_DATE_TIME.test(text)) {
    const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
    // Date.parse rolls 30 February over into March: a day the month lacks is no date.
    if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
    const zone = /(?:Z|([+-]\d{2}):?(\d{2})?)$/i.exec(text);
    // No zone: UTC, not the server's; an offset in hours only (+02) as Date.parse reads it (+02:00).
    const iso = text.slice(0, zone ? zone.index : undefined).replace(' ', 'T') + (!zone ? 'Z' : zone[1] ? `${zone[1]}:${zone[2] ?? '00'}` : 'Z');
    const ms = Date.parse(iso);
    return Number.isNaN(ms) ? undefined : new Date(ms);
  }
  const results = chrono.parse(text, { instant: now, timezone: 'UTC' }, { forwardDate: true });
  const [first] = results;
  if (results.length !== 1 || !first || first.index !== 0 || first.text.length !== text.length) return undefined;
  return first.start.date();
}

/** How an accepted email starts out: sent (queued now) or scheduled (waiting). */
export function acceptedState(scheduledAt: Date | null) {
  return scheduledAt
    ? {
        event: 'email.scheduled' as const,
        lastEvent: lastEventOf('email.scheduled'),
        deliveryStatus: 'scheduled' as const satisfies DeliveryStatus,
        dueAt: scheduledAt,
      }
    : { event: 'email.sent' as const, lastEvent: lastEventOf('email.sent'), deliveryStatus: 'queued' as const satisfies DeliveryStatus, dueAt: null };
}
