// When a temporary failure (4xx, no connection, a DNS time-out) is tried again, and when
// Postline gives up. Delays grow (POSTLINE_RETRY_DELAYS, default 1m 5m 15m 30m 1h 2h 4h, the
// last one repeating) so a host that is down for hours is not hammered, and the last attempt
// is placed at the deadline (the email's age reaching POSTLINE_MAX_QUEUE_AGE, default 3 days)
// rather than past it.

export interface RetryPolicy {
  delaysMs: number[];
  maxQueueAgeMs: number;
}

type RetryDecision = { retry: true; delayMs: number } | { retry: false; reason: 'max_queue_age_exceeded' };

/**
 * `attempts` counts the attempts made so far, the one that just failed included (≥ 1).
 * `queuedSince` starts the clock of the maximum queue age: when the email was accepted, or the
 * time it was scheduled for (a scheduled email is not in the queue before then).
 */
export function decideRetry(policy: RetryPolicy, attempts: number, queuedSince: Date, now = Date.now()): RetryDecision {
  const deadline = queuedSince.getTime() + policy.maxQueueAgeMs;
  if (now >= deadline) return { retry: false, reason: 'max_queue_age_exceeded' };
  const index = Math.min(Math.max(attempts, 1), policy.delaysMs.length) - 1;
  const delayMs = Math.min(policy.delaysMs[index]!, deadline - now);
  return { retry: true, delayMs };
}
