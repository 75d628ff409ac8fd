-- Email metrics by sending domain and broadcast (GET /emails/metrics' `domain` and `broadcast`
-- dimensions and `domain_id` / `broadcast_id` filters): each email_metrics row now also names
-- the domain and the broadcast of the emails it counts, which the event writer reads from the
-- recorded events' emails (src/events/email-metrics.ts countEventsCte). They are part of the
-- key, so "none" is the nil UUID rather than NULL: received mail (no emails row), mail sent
-- from no known domain, an email that is no broadcast's, and the rows counted before this
-- migration (their dimension is unknown; recounting them from events would lose the
-- unsubscribes, which are no events). The key changes: a node still running older code
-- (whose writer's ON CONFLICT names the old key) fails to record events until it is upgraded.
ALTER TABLE email_metrics
  ADD COLUMN domain_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
  ADD COLUMN broadcast_id uuid NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000';

ALTER TABLE email_metrics DROP CONSTRAINT email_metrics_pkey;
ALTER TABLE email_metrics ADD PRIMARY KEY (account_id, hour, metric, domain_id, broadcast_id, shard);
