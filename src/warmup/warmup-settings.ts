// The `warmup` field of PATCH /domains/:id, Postline's addition to the domain routes:
// {enabled?, schedule?, cap_transactional?}. enabled true starts a warm-up on day 1 (a domain
// warming up already keeps its day), false ends it; schedule sets a custom one, null goes back
// to the default; cap_transactional true holds transactional mail at the cap too (bulk-mail.ts).
// The schema is the check of its shape (api/request-schema.ts); the order of a schedule's days
// is checked here.
import { array, boolean, input, integer, nullable } from '../api/schema.js';
import { checkScheduleDays, type ScheduleStep } from './schedule.js';

const MAX_STEPS = 365;
const POSITIVE = integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, 'x-message': 'be a positive integer' });

export const WARMUP_SETTINGS_SCHEMA = input(
  {
    enabled: boolean({ description: 'true: warm up (from day 1 unless warming up already); false: send without warm-up caps.' }),
    schedule: nullable(
      array(input({ day: POSITIVE, per_provider_daily: POSITIVE }, ['day', 'per_provider_daily'], { 'x-message': 'be an object {day, per_provider_daily}' }), {
        minItems: 1,
        maxItems: MAX_STEPS,
        'x-message': `be a list of 1 to ${MAX_STEPS} steps {day, per_provider_daily}, or null for the default`,
        description:
          'Daily caps per mailbox provider from each day on, starting on day 1, days rising; the warm-up ends after the last day. null: the default schedule.',
      }),
    ),
    cap_transactional: boolean({
      description:
        "false (the default): the caps hold back bulk mail only (broadcasts, and emails with a `List-Unsubscribe` header or `Precedence: bulk`, `list` or `junk`); transactional mail always goes at once, and counts toward the day's cap. true: transactional mail over the cap waits for the next day too, the domain's and the outbound IPs' (POSTLINE_OUTBOUND_IPS).",
    }),
  },
  [],
  { description: 'Postline: the sending warm-up of the domain.', 'x-message': 'be an object {enabled, schedule, cap_transactional}' },
);

/** The `warmup` field once it passed WARMUP_SETTINGS_SCHEMA. */
export interface WarmupSettings {
  enabled?: boolean;
  schedule?: ScheduleStep[] | null;
  cap_transactional?: boolean;
}

/** `warmup` with its schedule's days checked; {} when absent. */
export function checkWarmup(warmup: WarmupSettings | undefined): WarmupSettings {
  if (!warmup) return {};
  return {
    enabled: warmup.enabled,
    cap_transactional: warmup.cap_transactional,
    ...(warmup.schedule !== undefined && { schedule: warmup.schedule && checkScheduleDays(warmup.schedule) }),
  };
}
