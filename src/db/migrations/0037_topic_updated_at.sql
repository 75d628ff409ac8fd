-- When a topic last changed: the topic.* webhooks' `updated_at` (Resend's TopicEventData).
-- Topics from before this migration take their creation time.
ALTER TABLE topics ADD COLUMN updated_at timestamptz;
UPDATE topics SET updated_at = created_at;
ALTER TABLE topics ALTER COLUMN updated_at SET NOT NULL, ALTER COLUMN updated_at SET DEFAULT now();
