-- Where an email came from. template_id: the published template it was rendered from;
-- outbound email webhooks carry it, as Resend's do (resend-compat-notes §7.2), beside the
-- `broadcast_id` of 0014_broadcasts.sql. topic_id: the topic it was scoped to (only its
-- subscribers get it: src/emails/apply-topic.ts), shown by GET /emails.
-- Valid on PostgreSQL 15 and 18.
ALTER TABLE emails ADD COLUMN template_id uuid;
ALTER TABLE emails ADD COLUMN topic_id uuid;
