-- The accept pipeline's additions to emails. Valid on PostgreSQL 15 and 18.

-- The envelope sender (SMTP MAIL FROM) the delivery worker uses for this email:
-- bounces+<email id>@<the domain's return-path host>, so a bounce names its email.
ALTER TABLE emails ADD COLUMN envelope_from text;
