-- The states a delivery (one recipient's row in the queue) can be in, named in one place in code
-- (queue/delivery-status.ts) and held here: a typo in any writer's SQL fails at once instead of
-- leaving a row no claim or view ever finds. Added NOT VALID, then validated, so the check of
-- existing rows does not hold a lock that blocks writers on a large queue.
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_known
  CHECK (status IN ('scheduled', 'queued', 'paused', 'delivered', 'bounced', 'failed', 'suppressed', 'canceled')) NOT VALID;
ALTER TABLE deliveries VALIDATE CONSTRAINT deliveries_status_known;
