-- Email metrics (GET /emails/metrics, the dashboard's overview): counts per account, per hour
-- and per metric, kept by the one event writer (src/events/record-events.ts) in the statement
-- that records the events, so reading a month of figures sums a few thousand rows instead of
-- counting an account's events. The metric names are the SDK's (`EmailMetric`); which event
-- counts as which is src/events/email-metrics.ts.
--
-- `shard` is the writing connection's pg_backend_pid() % 16: concurrent writers (the accept
-- group commits, delivery outcome batches) add to different rows of the same hour instead of
-- queueing on one row's lock until the other commits; readers sum the shards. Housekeeping
-- folds the shards of hours that ended over an hour ago into shard 0 (foldEmailMetricShards),
-- so a past hour is one row per metric.
CREATE TABLE email_metrics (
  account_id  uuid NOT NULL,
  hour        timestamptz NOT NULL,
  metric      text NOT NULL,
  shard       smallint NOT NULL,
  count       bigint NOT NULL,
  PRIMARY KEY (account_id, hour, metric, shard)
);

-- The events recorded before this migration, counted once as the writer now counts them
-- (NOTE: coupled with src/events/email-metrics.ts; later changes there do not rewrite history).
INSERT INTO email_metrics (account_id, hour, metric, shard, count)
SELECT account_id, date_trunc('hour', created_at), metric, 0, count(*)
  FROM (
    SELECT account_id, created_at,
           CASE type WHEN 'email.sent' THEN 'sent' WHEN 'email.delivered' THEN 'delivered'
                     WHEN 'email.delivery_delayed' THEN 'delivery_delayed' WHEN 'email.bounced' THEN 'bounced'
                     WHEN 'email.complained' THEN 'complained' WHEN 'email.failed' THEN 'failed'
                     WHEN 'email.suppressed' THEN 'suppressed' WHEN 'email.opened' THEN 'opened'
                     WHEN 'email.clicked' THEN 'clicked' WHEN 'email.received' THEN 'received' END AS metric
      FROM events
    UNION ALL
    SELECT account_id, created_at,
           CASE data->'bounce'->>'type' WHEN 'Permanent' THEN 'bounced_permanent' WHEN 'Transient' THEN 'bounced_transient'
                                        ELSE 'bounced_undetermined' END
      FROM events WHERE type = 'email.bounced'
    UNION ALL
    (SELECT DISTINCT ON (email_id, type) account_id, created_at,
            CASE type WHEN 'email.opened' THEN 'unique_opened' ELSE 'unique_clicked' END
       FROM events WHERE type IN ('email.opened', 'email.clicked') AND email_id IS NOT NULL
      ORDER BY email_id, type, id)
  ) counted
 WHERE metric IS NOT NULL
 GROUP BY 1, 2, 3;
