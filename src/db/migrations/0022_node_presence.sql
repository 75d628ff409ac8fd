-- Worker nodes announce themselves and beat every few seconds (src/cluster/node-presence.ts); a
-- node silent for longer than its dead-after period is presumed crashed, and the queue rows it
-- had claimed are handed back at once instead of when their leases run out.
CREATE TABLE nodes (
  id           uuid PRIMARY KEY,
  host         text NOT NULL,
  pid          integer NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);

-- The node whose worker holds the row's lease (delivery/claim.ts, webhooks/claim.ts); null when nobody does.
ALTER TABLE deliveries ADD COLUMN claimed_by uuid;
ALTER TABLE webhook_messages ADD COLUMN claimed_by uuid;
