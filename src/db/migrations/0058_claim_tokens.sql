-- A claim token for the two leased tables that had none (src/concurrency/leased-work.ts): a
-- broadcast's fan-out and an unanswered idempotency key are stamped with a uuid when claimed,
-- and the writes that end the claim match it. So a node presumed dead that was only stalled
-- can neither give back a broadcast another node has claimed since nor answer (and commit the
-- work of) a key another request has claimed since. Valid on PostgreSQL 15 and 18.
ALTER TABLE broadcasts ADD COLUMN claim_token uuid;
ALTER TABLE idempotency_keys ADD COLUMN claim_token uuid;
