-- Emails composed at delivery rather than at accept (the API's and broadcasts' emails, see
-- src/emails/accept.ts composeAt): the row holds the validated fields, and `mime` stays NULL
-- until the delivery worker composes and signs the message (src/emails/compose-deferred.ts)
-- and stores it with the first attempt's outcome. SMTP submissions and emails with
-- attachments are written with their signed message as before.
-- Valid on PostgreSQL 15 and 18.
ALTER TABLE emails ALTER COLUMN mime DROP NOT NULL;
