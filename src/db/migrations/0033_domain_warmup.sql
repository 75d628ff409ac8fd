-- Warm-up of sending domains (src/warmup/): a domain created from now on sends at most a
-- growing number of messages a day to each mailbox provider until its schedule ends.
-- warmup_started_at: when its day 1 began; null for a domain not warming up, which is every
-- domain created before this migration (they have a sending history already), a sandboxed
-- one, and one whose warm-up was turned off through the API.
-- warmup_schedule: [{day, per_provider_daily}] set through the API; null: the default schedule.
ALTER TABLE domains ADD COLUMN warmup_started_at timestamptz;
ALTER TABLE domains ADD COLUMN warmup_schedule jsonb;

-- What each domain was allowed to send to each provider on each day of its warm-up, shared by
-- every node: one UPSERT per delivery job adds what it may send (src/warmup/warmup-gate.ts).
-- `granted` is what the last statement added, read back by that statement's RETURNING.
CREATE TABLE warmup_sent (
  domain_id  uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  provider   text NOT NULL,
  day        integer NOT NULL,     -- day of the domain's warm-up, 1 = its first 24 hours
  sent       integer NOT NULL,
  granted    integer NOT NULL,
  PRIMARY KEY (domain_id, provider, day)
);
