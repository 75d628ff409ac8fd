-- The core schema: accounts, keys, domains, emails, the delivery queue, the event outbox,
-- idempotency records and request logs. Valid on PostgreSQL 15 and 18.

CREATE TABLE accounts (
  id          uuid PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name          text NOT NULL,
  token_hash    bytea NOT NULL UNIQUE,          -- sha256 of the token; the token is shown once
  permission    text NOT NULL CHECK (permission IN ('full_access', 'sending_access')),
  domain_id     uuid,                           -- sending_access restricted to one domain
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_used_at  timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at DESC, id DESC);

-- A domain belongs to one account; its name is unique in the installation because inbound
-- mail and verification records are routed by name.
CREATE TABLE domains (
  id                  uuid PRIMARY KEY,
  account_id          uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name                text NOT NULL UNIQUE,
  status              text NOT NULL DEFAULT 'not_started',
  region              text NOT NULL DEFAULT 'us-east-1',
  custom_return_path  text NOT NULL DEFAULT 'send',
  open_tracking       boolean NOT NULL DEFAULT false,
  click_tracking      boolean NOT NULL DEFAULT false,
  tls                 text NOT NULL DEFAULT 'opportunistic',
  sending_enabled     boolean NOT NULL DEFAULT true,
  receiving_enabled   boolean NOT NULL DEFAULT false,
  tracking_subdomain  text,
  dkim_selector       text NOT NULL,
  dkim_private_key    text NOT NULL,              -- PEM, PKCS#8
  dkim_public_key     text NOT NULL,              -- base64 DER (SPKI), the p= value
  record_status       jsonb NOT NULL DEFAULT '{}', -- record key → pending|verified|failed|…
  created_at          timestamptz NOT NULL DEFAULT now(),
  verified_at         timestamptz
);
CREATE INDEX domains_account ON domains (account_id, created_at DESC, id DESC);

-- One row per accepted email, with the composed, DKIM-signed message it will be sent as.
CREATE TABLE emails (
  id            uuid PRIMARY KEY,
  account_id    uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  domain_id     uuid REFERENCES domains (id) ON DELETE SET NULL,
  source        text NOT NULL DEFAULT 'api',   -- api | smtp | broadcast | automation
  from_address  text NOT NULL,                 -- as given, may carry a display name
  to_addresses  text[] NOT NULL,
  cc            text[],
  bcc           text[],
  reply_to      text[],
  subject       text NOT NULL,
  html          text,
  text          text,
  headers       jsonb,
  tags          jsonb,                         -- [{name, value}] as sent
  message_id    text NOT NULL,                 -- <…@domain>, ours
  mime          bytea NOT NULL,                -- the message exactly as it goes on the wire
  last_event    text NOT NULL,
  scheduled_at  timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX emails_account ON emails (account_id, created_at DESC, id DESC);

-- The queue: one row per (email, recipient). A worker claims due rows by pushing
-- next_attempt_at forward by its lease; a crashed worker's rows simply become due again.
CREATE TABLE deliveries (
  id               bigserial PRIMARY KEY,
  email_id         uuid NOT NULL REFERENCES emails (id) ON DELETE CASCADE,
  account_id       uuid NOT NULL,
  recipient        text NOT NULL,              -- bare address
  domain           text NOT NULL,              -- lower-case domain of the recipient
  status           text NOT NULL DEFAULT 'queued', -- queued | delivered | bounced | failed | suppressed | canceled
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  last_response    text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'queued';
CREATE INDEX deliveries_email ON deliveries (email_id);

-- The outbox of lifecycle events, written only by src/events/ in the same transaction as
-- the state change it describes. Webhook dispatch reads it in id order.
CREATE TABLE events (
  id          bigserial PRIMARY KEY,
  account_id  uuid NOT NULL,
  type        text NOT NULL,                   -- email.sent, email.delivered, domain.updated, …
  email_id    uuid,
  data        jsonb NOT NULL,                  -- the webhook payload's `data`
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_email ON events (email_id, id) WHERE email_id IS NOT NULL;

CREATE TABLE idempotency_keys (
  account_id       uuid NOT NULL,
  endpoint         text NOT NULL,              -- method + path
  key              text NOT NULL,
  request_hash     text NOT NULL,
  response_status  integer,                    -- null while the first request is in flight
  response_body    jsonb,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, endpoint, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

CREATE TABLE request_logs (
  id               uuid PRIMARY KEY,
  account_id       uuid NOT NULL,
  api_key_id       uuid,
  method           text NOT NULL,
  endpoint         text NOT NULL,
  response_status  integer NOT NULL,
  user_agent       text,
  request_body     jsonb,
  response_body    jsonb,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX request_logs_account ON request_logs (account_id, created_at DESC, id DESC);
CREATE INDEX request_logs_created ON request_logs (created_at);
