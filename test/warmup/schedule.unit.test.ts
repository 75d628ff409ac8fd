// Warm-up schedules: the default's shape, the cap of each day, days counted from the start in
// 24-hour periods, and what the API refuses as a custom schedule (PATCH /domains/:id's schema,
// then the order of the days).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestCheck } from '../../src/api/request-schema.js';
import { UPDATE_DOMAIN_SCHEMA } from '../../src/domains/domain-fields.js';
import { capOf, DEFAULT_SCHEDULE, lastDay, warmupDay } from '../../src/warmup/schedule.js';
import { checkWarmup, type WarmupSettings } from '../../src/warmup/warmup-settings.js';

const HOUR = 60 * 60_000;

const checkPatch = requestCheck(UPDATE_DOMAIN_SCHEMA);
/** `warmup.schedule` as PATCH /domains/:id reads it: the route's schema, then the order of the days. */
const parseSchedule = (raw: unknown) => checkWarmup((checkPatch({ warmup: { schedule: raw } }) as { warmup: WarmupSettings }).warmup).schedule;

describe('warm-up schedules', () => {
  it('starts at 50 a provider, grows every day and ends after day 14', () => {
    assert.equal(capOf(DEFAULT_SCHEDULE, 1), 50);
    assert.equal(lastDay(DEFAULT_SCHEDULE), 14);
    for (let day = 2; day <= 14; day++) assert.ok(capOf(DEFAULT_SCHEDULE, day)! > capOf(DEFAULT_SCHEDULE, day - 1)!);
    assert.equal(capOf(DEFAULT_SCHEDULE, 15), null);
  });

  it('holds a step’s cap until the next step', () => {
    const schedule = [
      { day: 1, perProviderDaily: 10 },
      { day: 4, perProviderDaily: 40 },
      { day: 6, perProviderDaily: 90 },
    ];
    assert.deepEqual(
      [1, 3, 4, 5, 6, 7].map((d) => capOf(schedule, d)),
      [10, 10, 40, 40, 90, null],
    );
  });

  it('counts days in whole 24 hours from the start', () => {
    const start = new Date('2026-01-01T23:00:00Z');
    assert.equal(warmupDay(start, start.getTime()), 1);
    assert.equal(warmupDay(start, start.getTime() + 23 * HOUR), 1, 'midnight does not start day 2');
    assert.equal(warmupDay(start, start.getTime() + 24 * HOUR), 2);
    assert.equal(warmupDay(start, start.getTime() - HOUR), 1, 'a clock slightly behind is still day 1');
  });

  it('refuses a custom schedule that does not start on day 1, goes back, or has no positive caps', () => {
    const refused = [
      [],
      [{ day: 2, per_provider_daily: 5 }],
      [{ day: 1, per_provider_daily: 0 }],
      [
        { day: 1, per_provider_daily: 5 },
        { day: 1, per_provider_daily: 6 },
      ],
      [{ day: 1, per_provider_daily: 5, extra: 1 }],
      'soon',
    ];
    for (const raw of refused) assert.throws(() => parseSchedule(raw), { errorName: 'validation_error' }, JSON.stringify(raw));
    assert.throws(() => parseSchedule([]), {
      message: 'The `warmup.schedule` field must be a list of 1 to 365 steps {day, per_provider_daily}, or null for the default, not [].',
    });
    assert.throws(() => parseSchedule([{ day: 2, per_provider_daily: 5 }]), {
      message: '`warmup.schedule` must start on day 1 and list its days in rising order.',
    });
    assert.throws(() => parseSchedule([{ day: 1, per_provider_daily: 0 }]), {
      message: 'The `warmup.schedule[0].per_provider_daily` field must be a positive integer, not 0.',
    });
    assert.throws(() => parseSchedule([{ day: 1, per_provider_daily: 5, extra: 1 }]), { message: 'Unknown field `warmup.schedule[0].extra`.' });
    assert.throws(() => parseSchedule(['day 1']), { message: 'The `warmup.schedule[0]` field must be an object {day, per_provider_daily}, not "day 1".' });
    assert.throws(() => parseSchedule([{ day: 1 }]), {
      errorName: 'missing_required_field',
      message: 'Missing `warmup.schedule[0].per_provider_daily` field.',
    });
    assert.deepEqual(parseSchedule(null), null, 'null: the default schedule');
    assert.deepEqual(
      parseSchedule([
        { day: 1, per_provider_daily: 5 },
        { day: 3, per_provider_daily: 9 },
      ]),
      [
        { day: 1, per_provider_daily: 5 },
        { day: 3, per_provider_daily: 9 },
      ],
    );
  });
});
