-- Attachments of sent emails, and the installation's signing secret. Valid on PostgreSQL 15 and 18.

-- The secret that signs URLs Postline hands out (attachment downloads, tracking links). One
-- row per purpose, made by the first node that needs it, so every node signs and verifies alike.
CREATE TABLE server_secrets (
  name        text PRIMARY KEY,
  secret      bytea NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- One row per attachment of an email. The bytes are not stored a second time: each row points
-- at the part's body inside the email's signed message (emails.mime), encoded as it was sent
-- (transfer_encoding), so a download reads that slice and decodes it.
-- Coupled with src/emails/attachment-parts.ts (which finds the slices) and emails.mime.
CREATE TABLE email_attachments (
  id                   uuid PRIMARY KEY,
  email_id             uuid NOT NULL REFERENCES emails (id) ON DELETE CASCADE,
  account_id           uuid NOT NULL,
  position             integer NOT NULL,         -- order in the request, 0-based
  filename             text,
  content_type         text NOT NULL,
  content_id           text,
  content_disposition  text NOT NULL CHECK (content_disposition IN ('inline', 'attachment')),
  size                 bigint NOT NULL,          -- decoded bytes
  transfer_encoding    text NOT NULL,            -- base64 | 7bit | 8bit, as in the part's header
  mime_offset          bigint NOT NULL,          -- 0-based byte offset of the part's body in emails.mime
  mime_length          bigint NOT NULL,
  created_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (email_id, position)
);
