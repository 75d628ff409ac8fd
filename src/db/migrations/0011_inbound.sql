-- Inbound mail for receiving-enabled domains (src/inbound/). Valid on PostgreSQL 15 and 18.

-- One row per message accepted over SMTP for our receiving domains: the bytes exactly as they
-- arrived, with the trace headers Postline adds in front (Received, Received-SPF,
-- Authentication-Results), stored once however many accounts it was for. The SMTP envelope and
-- the authentication verdicts are kept beside it. Raw download reads `raw`; attachment downloads
-- re-parse it (received_attachments.position).
CREATE TABLE inbound_messages (
  id               uuid PRIMARY KEY,
  raw              bytea NOT NULL,
  mail_from        text NOT NULL,               -- '' for the null reverse-path
  rcpt_to          text[] NOT NULL,
  remote_address   text NOT NULL,
  client_hostname  text,
  helo_name        text,
  secure           boolean NOT NULL,
  spf              text NOT NULL,               -- pass | fail | softfail | neutral | none | temperror | permerror
  dkim             text NOT NULL,               -- the best signature's result; none when unsigned
  dmarc            text NOT NULL,               -- pass | fail | none | temperror | permerror
  authentication   jsonb NOT NULL,              -- per-method details (domains, selectors, policy)
  created_at       timestamptz NOT NULL DEFAULT now()
);

-- One row per account the message was for (received_for: its envelope recipients on that
-- account's domains), with the parsed fields the API returns.
CREATE TABLE received_emails (
  id                  uuid PRIMARY KEY,
  account_id          uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  inbound_message_id  uuid NOT NULL REFERENCES inbound_messages (id) ON DELETE CASCADE,
  received_for        text[] NOT NULL,
  from_address        text NOT NULL,            -- bare address of the From header ('' when missing)
  to_addresses        text[] NOT NULL,
  cc                  text[] NOT NULL,
  bcc                 text[] NOT NULL,
  reply_to            text[] NOT NULL,
  subject             text NOT NULL,
  message_id          text,
  html                text,
  text                text,
  headers             jsonb NOT NULL,           -- [[name, value], …] in message order
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX received_emails_account ON received_emails (account_id, created_at DESC, id DESC);
CREATE INDEX received_emails_message ON received_emails (inbound_message_id);

-- The attachments of a received email as the parser (postal-mime) lists them. The bytes are not
-- stored again: a download parses inbound_messages.raw and takes the part at `position`.
CREATE TABLE received_attachments (
  id                   uuid PRIMARY KEY,
  received_email_id    uuid NOT NULL REFERENCES received_emails (id) ON DELETE CASCADE,
  account_id           uuid NOT NULL,
  position             integer NOT NULL,        -- index in the parser's attachment list, 0-based
  filename             text,
  content_type         text NOT NULL,
  content_id           text,                    -- without angle brackets
  content_disposition  text,                    -- inline | attachment | null (none given)
  size                 bigint NOT NULL,         -- decoded bytes
  UNIQUE (received_email_id, position)
);
