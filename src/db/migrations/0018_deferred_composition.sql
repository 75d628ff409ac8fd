-- Emails composed at delivery rather than at accept (a broadcast's emails: src/broadcasts/):
-- the row holds the rendered fields, and `mime` stays NULL until the delivery worker composes
-- and signs the message (src/emails/compose-deferred.ts) and stores it, before the first
-- attempt. Every other email is written with its signed message as before.
-- Valid on PostgreSQL 15 and 18.
ALTER TABLE emails ALTER COLUMN mime DROP NOT NULL;
