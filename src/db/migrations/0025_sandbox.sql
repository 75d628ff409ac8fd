-- POSTLINE_SANDBOX: mail the delivery worker handed to the built-in catcher instead of an MX
-- host (src/sandbox/), as it arrived there, with the DKIM verdict on it.
CREATE TABLE sandbox_messages (
  id          uuid PRIMARY KEY,
  account_id  uuid REFERENCES accounts (id) ON DELETE CASCADE,
  email_id    uuid REFERENCES emails (id) ON DELETE SET NULL,
  mail_from   text NOT NULL,
  rcpt_to     text[] NOT NULL,
  subject     text NOT NULL,
  from_header text NOT NULL,
  raw         bytea NOT NULL,
  dkim        jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sandbox_messages_account ON sandbox_messages (account_id, created_at DESC, id DESC);

-- A domain created while POSTLINE_SANDBOX was on (through the API, or on first use as a
-- sender): it sends without DNS there, and says so (`sandboxed: true`).
ALTER TABLE domains ADD COLUMN sandboxed boolean NOT NULL DEFAULT false;
