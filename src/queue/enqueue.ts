// Enqueueing at accept: one delivery per recipient, written in the statement that writes the
// email and its first event (emails/persist-and-enqueue.ts), so an acknowledged email is always
// in the queue. Transactional rows are claimed before bulk ones (0014_broadcasts.sql).
import type { DeliveryStatus } from './delivery-status.js';

export interface NewDelivery {
  emailId: string;
  accountId: string;
  recipient: string;
  domain: string;
  /** `queued` (due at once) or `scheduled` (waiting for `dueAt`). */
  status: Extract<DeliveryStatus, 'queued' | 'scheduled'>;
  dueAt: Date | null;
  priority: 'transactional' | 'bulk';
}

const PRIORITY = { transactional: 0, bulk: 1 } as const;

/** `<name> AS (INSERT INTO deliveries …)`, for a WITH list; its values are appended to `params`. */
export function enqueueCte(name: string, rows: NewDelivery[], params: unknown[]): string {
  const at =
    params.push(
      rows.map((r) => r.emailId),
      rows.map((r) => r.accountId),
      rows.map((r) => r.recipient),
      rows.map((r) => r.domain),
      rows.map((r) => r.status),
      rows.map((r) => r.dueAt),
      rows.map((r) => PRIORITY[r.priority]),
    ) - 6;
  return `${name} AS (
       INSERT INTO deliveries (email_id, account_id, recipient, domain, status, next_attempt_at, priority)
       SELECT v.email_id, v.account_id, v.recipient, v.domain, v.status, COALESCE(v.due, now()), v.priority
         FROM unnest($${at}::uuid[], $${at + 1}::uuid[], $${at + 2}::text[], $${at + 3}::text[],
                     $${at + 4}::text[], $${at + 5}::timestamptz[], $${at + 6}::smallint[])
              AS v(email_id, account_id, recipient, domain, status, due, priority)
     )`;
}
