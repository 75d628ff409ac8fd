-- The published template an email was rendered from (null without one): outbound email
-- webhooks carry it as `template_id`, as Resend's do (resend-compat-notes §7.2), beside the
-- `broadcast_id` of 0014_broadcasts.sql. Valid on PostgreSQL 15 and 18.
ALTER TABLE emails ADD COLUMN template_id uuid;
