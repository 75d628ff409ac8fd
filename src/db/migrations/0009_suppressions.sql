-- The account's suppression list: addresses Postline no longer sends to. Valid on PostgreSQL 15 and 18.
-- Added by a hard bounce or a complaint (src/delivery/outcomes.ts, in the outcome's
-- transaction) or through the /suppressions API; read once per accepted request.
CREATE TABLE suppressions (
  id          uuid PRIMARY KEY,
  account_id  uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email       text NOT NULL,                   -- bare address, lower-cased
  origin      text NOT NULL CHECK (origin IN ('bounce', 'complaint', 'manual')),
  source_id   uuid,                            -- the email whose bounce or complaint added it
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, email)
);
CREATE INDEX suppressions_account ON suppressions (account_id, created_at DESC, id DESC);
