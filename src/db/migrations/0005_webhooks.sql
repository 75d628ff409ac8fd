-- Webhooks: endpoints, the messages the dispatcher fans events out into, and every attempt
-- to deliver them (the delivery log). Valid on PostgreSQL 15 and 18.

-- The id of the transaction that wrote each event. Ids from a sequence are handed out
-- before commit, so a reader going by id alone could pass over an event whose transaction
-- commits late. The dispatcher reads events in (txid, id) order and only below the oldest
-- transaction still running (pg_snapshot_xmin), which are all finished: nothing is skipped.
ALTER TABLE events ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_txid ON events (txid, id);

CREATE TABLE webhooks (
  id                       uuid PRIMARY KEY,
  account_id               uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  endpoint                 text NOT NULL,
  events                   text[] NOT NULL,
  status                   text NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  signing_secret           text NOT NULL,               -- whsec_<base64>
  previous_signing_secret  text,                        -- still signed with until previous_secret_until
  previous_secret_until    timestamptz,
  failing_since            timestamptz,                 -- first failure of the current run of failures
  created_at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_account ON webhooks (account_id, created_at DESC, id DESC);

-- Where the fan-out has got to in (txid, id) order. One row: whichever node holds its lock
-- fans out; the others skip it (FOR UPDATE SKIP LOCKED). It starts past the events that
-- exist now, which all carry this migration's transaction id (the column's default above).
CREATE TABLE webhook_cursor (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  last_txid   xid8 NOT NULL,
  last_id     bigint NOT NULL
);
INSERT INTO webhook_cursor (last_txid, last_id)
SELECT pg_current_xact_id(), COALESCE(max(id), 0) FROM events;

-- One message per (event, endpoint): the unit that is signed, sent, retried and replayed.
-- Its id is the svix-id on every attempt. Due messages are claimed like the mail queue:
-- next_attempt_at pushed forward by a lease, which is also the fencing token of writes.
CREATE TABLE webhook_messages (
  id               text PRIMARY KEY,                -- msg_…
  webhook_id       uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  account_id       uuid NOT NULL,
  event_id         bigint NOT NULL,
  event_type       text NOT NULL,
  status           text NOT NULL DEFAULT 'pending', -- pending | attempting | success | failed
  attempts         integer NOT NULL DEFAULT 0,
  retry            boolean NOT NULL DEFAULT true,   -- false for a replay: one attempt, no retries
  next_attempt_at  timestamptz,                     -- null once success or failed
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (webhook_id, event_id)                   -- also the delivery log's order
);
CREATE INDEX webhook_messages_due ON webhook_messages (webhook_id, next_attempt_at)
  WHERE status IN ('pending', 'attempting');
CREATE INDEX webhook_messages_created ON webhook_messages (created_at);

-- The delivery log. No foreign key: an attempt that finishes after its endpoint was deleted
-- is still written (and purged with the old ones) rather than failing its whole batch.
CREATE TABLE webhook_attempts (
  id           uuid PRIMARY KEY,
  message_id   text NOT NULL,
  webhook_id   uuid NOT NULL,
  status_code  integer NOT NULL,                   -- 0 when no HTTP response came back
  latency_ms   integer NOT NULL,
  response     text NOT NULL,                      -- the first KB of the body, or the error
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_attempts_message ON webhook_attempts (message_id, created_at DESC, id DESC);
CREATE INDEX webhook_attempts_created ON webhook_attempts (created_at);
