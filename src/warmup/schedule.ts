// Warm-up schedules: how many messages a sending domain may send to each mailbox provider on
// each day of its warm-up. A schedule is a list of steps {day, perProviderDaily} by day, the
// first on day 1; a step's cap holds until the next step, and the warm-up ends after the last
// step's day (M): from day M + 1 on, the domain is not limited.
//
// Days are 24-hour periods counted from the domain's warmup_started_at, not calendar days: every
// day of the schedule is a whole day wherever and whenever the domain was created, and no time
// zone has to be chosen. A test moves warmup_started_at back to make days pass.
import { validation } from '../api/errors.js';

export interface WarmupStep {
  day: number;
  perProviderDaily: number;
}

const DAY_MS = 24 * 60 * 60_000;

/**
 * The default: 50 messages per provider on day 1, about doubling daily for the first week,
 * then growing by roughly half each day up to 50,000 a provider on day 14, the last day of the
 * warm-up. From published practice: "Day 1: 50-100 emails, Day 2: 100-200, Day 3: 200-400, …
 * Day 7: 3,000-5,000" (connected.app, "Warming up IP addresses"); doubling to 20,000 on day 7
 * and +25-50 % a day after (kb.adcrux.io, "IP Warm-up Strategy"); SendGrid's and Mailgun's
 * guides also start at 50 a day. Those figures are per IP for all providers; applied per
 * provider they are a little more generous, and a provider that wants less says so with
 * 421s, which traffic shaping (delivery/shaping.ts) obeys.
 */
export const DEFAULT_SCHEDULE: readonly WarmupStep[] = [50, 100, 200, 400, 800, 1_500, 3_000, 5_000, 8_000, 12_000, 18_000, 25_000, 35_000, 50_000].map(
  (perProviderDaily, i) => ({ day: i + 1, perProviderDaily }),
);

/** The day of the warm-up at `now`: 1 during the first 24 hours after `startedAt`. */
export function warmupDay(startedAt: Date, now: number): number {
  return Math.max(1, Math.floor((now - startedAt.getTime()) / DAY_MS) + 1);
}

/** When day `day` begins. */
export function dayStart(startedAt: Date, day: number): Date {
  return new Date(startedAt.getTime() + (day - 1) * DAY_MS);
}

/** The last day of the schedule: the warm-up ends after it. */
export const lastDay = (schedule: readonly WarmupStep[]): number => schedule.at(-1)!.day;

/** Messages per provider allowed on `day`; null once the warm-up has ended. */
export function capOf(schedule: readonly WarmupStep[], day: number): number | null {
  if (day > lastDay(schedule)) return null;
  return [...schedule].reverse().find((step) => step.day <= day)!.perProviderDaily;
}

/** A step of `warmup.schedule` as the API sends and stores it (warmup-settings.ts). */
export interface ScheduleStep {
  day: number;
  per_provider_daily: number;
}

/** A schedule as stored (warmup_schedule: [{day, per_provider_daily}]), the default for null. */
export function storedSchedule(stored: ScheduleStep[] | null): readonly WarmupStep[] {
  return stored ? stored.map((s) => ({ day: s.day, perProviderDaily: s.per_provider_daily })) : DEFAULT_SCHEDULE;
}

/** The API's `warmup.schedule`, its steps' shape checked by its schema (warmup-settings.ts): days from 1, rising. */
export function checkScheduleDays(steps: ScheduleStep[]): ScheduleStep[] {
  steps.forEach((step, i) => {
    if (i === 0 ? step.day !== 1 : step.day <= steps[i - 1]!.day) {
      throw validation('`warmup.schedule` must start on day 1 and list its days in rising order.');
    }
  });
  return steps;
}
