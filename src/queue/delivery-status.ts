// The states of a delivery, one recipient's row in the queue (`deliveries.status`; the
// migration 0057_delivery_status_check.sql holds the database to the same list):
//   scheduled  waits for its email's scheduled_at (emails/release-scheduled.ts makes it queued);
//   queued     due at next_attempt_at, claimed by a worker for an attempt (queue/claim.ts);
//   paused     held by a pause of its destination (queue/pauses.ts) until resumed;
// and the final ones, which no claim, pause or repair changes again:
//   delivered, bounced, failed, suppressed (on the list when accepted, or a test address),
//   canceled (a scheduled email canceled).
export const DELIVERY_STATUSES = ['scheduled', 'queued', 'paused', 'delivered', 'bounced', 'failed', 'suppressed', 'canceled'] as const;

export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The states a delivery ends in. */
export type FinalDeliveryStatus = Exclude<DeliveryStatus, 'scheduled' | 'queued' | 'paused'>;
