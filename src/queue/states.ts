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

/** The statuses of a delivery not yet final. */
export const UNFINISHED_STATUSES = ['queued', 'scheduled', 'paused'] as const;

/** SQL: whether the deliveries row aliased `d` is not yet final. */
export const unfinishedSql = (d: string) => `${d}.status IN ('queued', 'scheduled', 'paused')`;

/** SQL: the QueueState of the deliveries row aliased `d` (meaningful for unfinished rows). */
export const queueStateSql = (d: string) =>
  `CASE WHEN ${d}.status = 'scheduled' THEN 'scheduled'
        WHEN ${d}.status = 'paused' THEN 'paused'
        WHEN ${d}.claimed_by IS NOT NULL THEN 'in_flight'
        WHEN ${d}.next_attempt_at <= now() THEN 'due'
        ELSE 'deferred' END`;
