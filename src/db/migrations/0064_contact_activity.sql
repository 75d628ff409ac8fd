-- A contact's activity (GET /contacts/:contact/activity, audience/contact-activity.ts): its
-- automation runs and its unsubscribes from broadcasts, found by the contact.
CREATE INDEX automation_runs_contact ON automation_runs (contact_id, created_at DESC, id DESC);
CREATE INDEX broadcast_unsubscribes_contact ON broadcast_unsubscribes (contact_id, created_at DESC);
