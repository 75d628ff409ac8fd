-- SMTP submissions of up to 64 KB keep their html and text in the message only: accepting one
-- parses just its header section (src/smtp/parse-message.ts), `html` and `text` stay NULL, and
-- GET /emails/:id reads them from the stored message (src/emails/get-email.ts). Larger ones
-- are parsed whole at accept, off the event loop, and store them as before.
-- Valid on PostgreSQL 15 and 18 (a constant default adds no table rewrite).
ALTER TABLE emails ADD COLUMN bodies_in_message boolean NOT NULL DEFAULT false;
