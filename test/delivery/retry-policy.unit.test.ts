// When a temporary failure is tried again, at fixed clocks: the delays grow by attempt, the
// last one repeats, the last attempt is placed at the maximum queue age rather than past it,
// and at the deadline Postline gives up.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideRetry, type RetryPolicy } from '../../src/delivery/retry-policy.js';

const MIN = 60_000;
const DAY = 86_400_000;
/** The default schedule: 1m 5m 15m 30m 1h 2h 4h, at most 3 days. */
const POLICY: RetryPolicy = { delaysMs: [1, 5, 15, 30, 60, 120, 240].map((m) => m * MIN), maxQueueAgeMs: 3 * DAY };
const CREATED = new Date('2026-01-14T10:00:00Z');
const T0 = CREATED.getTime();

describe('unit: decideRetry', () => {
  it('waits the delay of the attempt that just failed: the first failure waits 1 minute, the seventh 4 hours', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempts) => decideRetry(POLICY, attempts, CREATED, T0 + 1000));
    assert.deepEqual(
      delays,
      [1, 5, 15, 30, 60, 120, 240].map((m) => ({ retry: true, delayMs: m * MIN })),
    );
  });

  it('repeats the last delay for every attempt past the list', () => {
    assert.deepEqual(decideRetry(POLICY, 8, CREATED, T0), { retry: true, delayMs: 240 * MIN });
    assert.deepEqual(decideRetry(POLICY, 1000, CREATED, T0), { retry: true, delayMs: 240 * MIN });
  });

  it('treats attempts below 1 as the first attempt', () => {
    assert.deepEqual(decideRetry(POLICY, 0, CREATED, T0), { retry: true, delayMs: MIN });
    assert.deepEqual(decideRetry(POLICY, -3, CREATED, T0), { retry: true, delayMs: MIN });
  });

  it('shortens the last wait so the last attempt falls on the deadline, not past it', () => {
    const deadline = T0 + POLICY.maxQueueAgeMs;
    assert.deepEqual(decideRetry(POLICY, 7, CREATED, deadline - 10 * MIN), { retry: true, delayMs: 10 * MIN });
    assert.deepEqual(decideRetry(POLICY, 1, CREATED, deadline - 1), { retry: true, delayMs: 1 });
  });

  it('gives up once the email is as old as the maximum queue age, and after', () => {
    const deadline = T0 + POLICY.maxQueueAgeMs;
    assert.deepEqual(decideRetry(POLICY, 3, CREATED, deadline), { retry: false, reason: 'max_queue_age_exceeded' });
    assert.deepEqual(decideRetry(POLICY, 1, CREATED, deadline + DAY), { retry: false, reason: 'max_queue_age_exceeded' });
  });

  it('gives up at once when the maximum queue age is 0', () => {
    assert.deepEqual(decideRetry({ delaysMs: [MIN], maxQueueAgeMs: 0 }, 1, CREATED, T0), { retry: false, reason: 'max_queue_age_exceeded' });
  });

  it('uses a single-delay schedule for every attempt', () => {
    const policy: RetryPolicy = { delaysMs: [30_000], maxQueueAgeMs: DAY };
    for (const attempts of [1, 2, 50]) assert.deepEqual(decideRetry(policy, attempts, CREATED, T0), { retry: true, delayMs: 30_000 });
  });

  it('reads the clock when no time is given', () => {
    const justCreated = new Date(Date.now());
    assert.deepEqual(decideRetry(POLICY, 1, justCreated), { retry: true, delayMs: MIN });
    assert.deepEqual(decideRetry(POLICY, 1, new Date(Date.now() - 4 * DAY)), { retry: false, reason: 'max_queue_age_exceeded' });
  });
});
