-- An id for each delivery attempt: GET /emails/:id/attempts pages with Resend's `after` and
-- `before` cursors, and a cursor names a row. Serial, as the events' ids are (the two lists are
-- an email's timeline, oldest first). (Numbered 0030: 0029 is taken by another change.)
-- The page walks (attempted_at, id) within one email, so the index ends with the id.
ALTER TABLE delivery_attempts ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY;
DROP INDEX delivery_attempts_email;
CREATE INDEX delivery_attempts_email ON delivery_attempts (email_id, attempted_at, id);
