-- SMTP submissions signed at delivery (src/emails/accept.ts composeAt): the client's message,
-- prepared with our Message-ID and without Bcc (src/emails/submitted-message.ts), waits in
-- `unsigned_mime` while `mime` stays NULL; the delivery worker DKIM-signs it
-- (src/emails/compose-deferred.ts) and its first attempt's outcome stores the signed message
-- in `mime` and clears `unsigned_mime` (src/delivery/outcomes.ts). Submissions with
-- attachments are still signed at accept (their downloads slice `mime`).
-- Valid on PostgreSQL 15 and 18.
ALTER TABLE emails ADD COLUMN unsigned_mime bytea;
