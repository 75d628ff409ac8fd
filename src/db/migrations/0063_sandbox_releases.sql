-- POSTLINE_SANDBOX: captured mail released to a real address (src/sandbox/release.ts). A
-- release is an email of its own, accepted through the accept pipeline; this row, written in
-- that accepting transaction, is what tells the sandbox's catcher to pass the email on to
-- POSTLINE_SANDBOX_RELEASE_URL instead of capturing it again, and what the captured message's
-- page lists as its releases. Written by src/sandbox/ only.
CREATE TABLE sandbox_releases (
  email_id           uuid PRIMARY KEY REFERENCES emails (id) ON DELETE CASCADE,
  account_id         uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  sandbox_message_id uuid REFERENCES sandbox_messages (id) ON DELETE SET NULL,
  rcpt_to            text[] NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sandbox_releases_message ON sandbox_releases (sandbox_message_id, created_at);
