-- The node whose presence vouches for the process that claimed an idempotency key and has not
-- answered yet (null when answered, or when the process keeps no presence): when that node
-- stops beating, its unanswered claims are deleted (src/idempotency/idempotency-keys.ts), so a
-- client's retry after a crash is served at once rather than refused until the claim is two
-- minutes old. Valid on PostgreSQL 15 and 18.
ALTER TABLE idempotency_keys ADD COLUMN claimed_by uuid;
