// Where a domain is in its warm-up, as GET /domains/:id and the dashboard's Domains page show
// it: day N of M, today's cap per provider and what each provider may still receive today, and
// whether the caps hold transactional mail too (cap_transactional).
import { isoTimestamp } from '../api/format.js';
import { array, boolean, constant, integer, isoTime, nullable, object, oneOfValues, string } from '../api/schema.js';
import type { Queryable } from '../db/database.js';
import { capOf, dayStart, lastDay, type ScheduleStep, storedSchedule, warmupDay } from './schedule.js';

const STEP_SCHEMA = object({ day: integer(), per_provider_daily: integer() });

/** Postline's own field of a domain: null when the domain is not warming up. */
export const WARMUP_SCHEMA = nullable(
  object(
    {
      status: oneOfValues(['warming_up', 'ended'], { description: 'ended: past the last day of the schedule, no longer limited.' }),
      started_at: isoTime(),
      day: integer({ description: 'Day of the warm-up now, 1 during the first 24 hours.' }),
      days: integer({ description: 'The last day of the schedule.' }),
      per_provider_daily: nullable(integer({ description: "Today's cap per mailbox provider; null once ended." })),
      next_day_at: nullable(isoTime()),
      schedule: array(STEP_SCHEMA),
      custom_schedule: constant(true, { description: 'Present when the schedule was set through the API.' }),
      cap_transactional: boolean({
        description: 'false: only bulk mail (broadcasts, List-Unsubscribe or Precedence: bulk/list/junk) waits at the cap; true: transactional mail too.',
      }),
      today: array(object({ provider: string(), sent: integer(), remaining: integer() }), {
        description: 'Providers that received mail today; every other provider may still receive per_provider_daily.',
      }),
    },
    ['status', 'started_at', 'day', 'days', 'per_provider_daily', 'next_day_at', 'schedule', 'cap_transactional', 'today'],
    { description: 'Postline: the sending warm-up (daily caps per mailbox provider that grow day by day); null when not warming up.' },
  ),
);

/** A domain (`domains`) as warmupProgress reads it. */
interface DomainWarmupRow {
  id: string;
  warmup_started_at: Date | null;
  warmup_schedule: ScheduleStep[] | null;
  warmup_cap_transactional: boolean;
}

interface WarmupSentRow {
  provider: string;
  sent: number;
}

/** `row`: a domain with warmup_started_at and warmup_schedule. */
export async function warmupProgress(q: Queryable, row: DomainWarmupRow, now = Date.now()) {
  if (!row.warmup_started_at) return null;
  const startedAt: Date = row.warmup_started_at;
  const schedule = storedSchedule(row.warmup_schedule);
  const day = warmupDay(startedAt, now);
  const cap = capOf(schedule, day);
  const sent =
    cap === null
      ? []
      : await q.query<WarmupSentRow>('SELECT provider, sent FROM warmup_sent WHERE domain_id = $1 AND day = $2 ORDER BY provider', [row.id, day]);
  return {
    status: cap === null ? 'ended' : 'warming_up',
    started_at: isoTimestamp(startedAt),
    day,
    days: lastDay(schedule),
    per_provider_daily: cap,
    next_day_at: cap === null ? null : isoTimestamp(dayStart(startedAt, day + 1)),
    schedule: schedule.map((s) => ({ day: s.day, per_provider_daily: s.perProviderDaily })),
    ...(row.warmup_schedule ? { custom_schedule: true as const } : {}),
    cap_transactional: row.warmup_cap_transactional,
    today: sent.map((r) => ({ provider: r.provider, sent: r.sent, remaining: Math.max(0, cap! - r.sent) })),
  };
}
