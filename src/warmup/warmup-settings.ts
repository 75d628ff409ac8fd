// The `warmup` field of PATCH /domains/:id, Postline's addition to the domain routes:
// {enabled?, schedule?}. enabled true starts a warm-up on day 1 (a domain warming up already
// keeps its day), false ends it; schedule sets a custom one, null goes back to the default.
import { validation } from '../api/errors.js';
import { array, boolean, input, integer, nullable, object } from '../api/schema.js';
import { rejectUnknown } from '../api/validate.js';
import { parseSchedule } from './schedule.js';

export const WARMUP_SETTINGS_SCHEMA = input(
  {
    enabled: boolean({ description: 'true: warm up (from day 1 unless warming up already); false: send without warm-up caps.' }),
    schedule: nullable(
      array(object({ day: integer({ minimum: 1 }), per_provider_daily: integer({ minimum: 1 }) }), {
        description: 'Daily caps per mailbox provider from each day on, starting on day 1; the warm-up ends after the last day. null: the default schedule.',
      }),
    ),
  },
  [],
  { description: 'Postline: the sending warm-up of the domain.' },
);

export function parseWarmup(raw: unknown): { enabled?: boolean; schedule?: { day: number; per_provider_daily: number }[] | null } {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw validation('The `warmup` field must be an object {enabled, schedule}.');
  const body = raw as Record<string, unknown>;
  rejectUnknown(body, ['enabled', 'schedule'], 'warmup.');
  if (body.enabled !== undefined && typeof body.enabled !== 'boolean') throw validation('The `warmup.enabled` field must be a boolean.');
  return {
    enabled: body.enabled as boolean | undefined,
    ...(body.schedule !== undefined && { schedule: body.schedule === null ? null : parseSchedule(body.schedule) }),
  };
}
