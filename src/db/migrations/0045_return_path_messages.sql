-- Every message that reaches an email's return path, with what was decided about it and why
-- (src/inbound/recognise-return-path-mail.ts): a bounce, a delay or a complaint (standard report,
-- a known non-standard format, or prose), an auto-reply (never a bounce), a report that changes
-- nothing, or unrecognised. Read by GET /emails/:id/reports; owned by src/inbound/.
CREATE TABLE return_path_messages (
  id           bigserial PRIMARY KEY,
  email_id     uuid NOT NULL REFERENCES emails (id) ON DELETE CASCADE,
  account_id   uuid NOT NULL,
  mail_from    text NOT NULL,            -- the envelope sender ('' for a null return path)
  from_header  text,
  subject      text,
  verdict      text NOT NULL,            -- bounce | delay | complaint | auto_reply | no_news | unrecognised
  format       text NOT NULL,            -- rfc3464, arf, qmail, exim, …, prose, auto-reply, none
  reason       text NOT NULL,            -- why, in a sentence
  findings     jsonb NOT NULL DEFAULT '[]', -- per recipient: kind, status, diagnostic, bounce, event
  received_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX return_path_messages_email ON return_path_messages (email_id, received_at, id);
