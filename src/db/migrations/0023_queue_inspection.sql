-- Seeing into the queue and steering it (src/queue/).

-- The last attempt of each delivery: when, and at which MX host (last_response has its reply).
ALTER TABLE deliveries ADD COLUMN last_attempt_at timestamptz;
ALTER TABLE deliveries ADD COLUMN last_mx text;

-- The last reply each account's mail got at each recipient domain, whatever became of the
-- message (written with the delivery outcomes, delivery/outcomes.ts): what the queue's
-- summary shows as "last reply seen there", and the MX host that rolls the domain up to its
-- provider.
CREATE TABLE destination_replies (
  account_id    uuid NOT NULL,
  domain        text NOT NULL,
  mx            text,
  reply         text NOT NULL,
  attempted_at  timestamptz NOT NULL,
  PRIMARY KEY (account_id, domain)
);

-- Paused destinations, per account: a recipient domain, or a provider (src/providers/) by name.
-- A claimed delivery to a paused destination becomes 'paused' (status) with paused_by naming
-- the pause; resuming deletes the pause and makes its rows due again. A row whose pause is
-- gone is made due by the next sweep (queue/pauses.ts), so no race can leave mail paused.
CREATE TABLE queue_pauses (
  id          bigserial PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('domain', 'provider')),
  name        text NOT NULL,
  reason      text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, kind, name)
);
ALTER TABLE deliveries ADD COLUMN paused_by bigint;

-- Every delivery not yet final, by account and destination: the queue's summary and listing,
-- and the max-queue-age sweep. Partial, so delivered mail (most rows) costs it nothing; the
-- columns that tell a row's state (queue/states.ts) are included, so the summary can count a
-- million rows from the index alone.
CREATE INDEX deliveries_unfinished ON deliveries (account_id, domain, created_at, id)
  INCLUDE (status, claimed_by, next_attempt_at)
  WHERE status IN ('queued', 'scheduled', 'paused');

-- Paused rows by their pause: resuming, and the sweep for rows whose pause is gone.
CREATE INDEX deliveries_paused ON deliveries (paused_by) WHERE status = 'paused';
