// The states a delivery (one recipient of one email) passes through before it is final, as
// the queue's views and the metrics name them. Stored state is `deliveries.status` plus the
// lease columns; this is the one place that reads them as an operator's words.
//
// - due: queued and its time has come; the next claim takes it.
// - in_flight: claimed by a worker (`claimed_by`), an attempt running or about to.
// - deferred: tried, failed for now, waiting for its next attempt.
// - scheduled: waiting for the time it was scheduled at (emails.scheduled_at).
// - paused: its destination is paused (queue/pauses.ts); waits until resumed.

export const QUEUE_STATES = ['due', 'in_flight', 'deferred', 'scheduled', 'paused'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** SQL: whether the deliveries row aliased `d` is not yet final. */
export const unfinishedSql = (d: string) => `${d}.status IN ('queued', 'scheduled', 'paused')`;

/** SQL, per state: whether the unfinished deliveries row aliased `d` is in it. Exactly one holds. */
export const STATE_SQL: Record<QueueState, (d: string) => string> = {
  due: (d) => `${d}.status = 'queued' AND ${d}.claimed_by IS NULL AND ${d}.next_attempt_at <= now()`,
  in_flight: (d) => `${d}.status = 'queued' AND ${d}.claimed_by IS NOT NULL`,
  deferred: (d) => `${d}.status = 'queued' AND ${d}.claimed_by IS NULL AND ${d}.next_attempt_at > now()`,
  scheduled: (d) => `${d}.status = 'scheduled'`,
  paused: (d) => `${d}.status = 'paused'`,
};

/** SQL: the QueueState of the unfinished deliveries row aliased `d`. */
export const queueStateSql = (d: string) => `CASE ${QUEUE_STATES.map((state) => `WHEN ${STATE_SQL[state](d)} THEN '${state}'`).join(' ')} END`;

/** SQL select-list items `count(*) FILTER (…) AS <state>` for each state, over rows aliased `d`. */
export const stateCountsSql = (d: string) => QUEUE_STATES.map((state) => `count(*) FILTER (WHERE ${STATE_SQL[state](d)}) AS ${state}`).join(', ');
